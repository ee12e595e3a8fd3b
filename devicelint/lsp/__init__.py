"""`devicelint server`: the language server for editors (the `lsp` extra).

Only server.py imports pygls and lsprotocol; project.py and edits.py are plain Python over
devicelint's own config, engine, fix and project-summary machinery, so the plain linter
never needs the extra.
"""
