"""End-to-end tests that drive real coding-agent CLIs against loopback fakes."""
