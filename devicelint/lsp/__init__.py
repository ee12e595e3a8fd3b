"""`devicelint server`: the language server for editors (the `lsp` extra).

server.py imports pygls and lsprotocol (only `devicelint server` imports it); convert.py
puts findings and fixes in LSP terms; workspace.py is plain Python over devicelint's own
config, engine, fix and project-summary machinery. The plain linter never imports this package.
"""
