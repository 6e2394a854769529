"""Reading agents' transcripts: a bounded tail reader shared by all, one module per agent format."""
