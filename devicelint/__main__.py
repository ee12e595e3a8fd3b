from devicelint.cli import entry

entry()
