"""`memevo ui`: a local web page over the memory, for people (docs/ui.md).

* ``security``: the per-start token, the session cookie, the CSRF token, Host and Origin checks
* ``server``: the loopback HTTP server and the request checks every request passes
* ``html`` / ``assets``: escaping, the page frame, the stylesheet and the little script
* ``pages`` / ``memory_page`` / ``activity``: what each page shows
* ``actions``: the buttons, through the same controls as the CLI
* ``charts``: server-drawn SVG
"""
