"""Pure-Python pieces of games that also run in the browser (Pyodide): see docs/offline.md."""
