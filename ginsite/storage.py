"""Static files storage of production mode (DEBUG off)."""
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's hashed and compressed files, with the imports between JS modules
    rewritten to the hashed names too: the table's modules are then cached for good and
    the ``modulepreload`` links of the page fetch the very URLs the imports ask for."""

    support_js_module_import_aggregation = True

    # Vendored third-party bundles whose text is left as it is: Pyodide's generated
    # ``pyodide.asm.js`` holds strings that look like module imports (docs/offline.md).
    verbatim_prefixes = ("vendor/pyodide/",)

    def _post_process(self, paths, adjustable_paths, hashed_files):
        adjustable = [p for p in adjustable_paths if not p.startswith(self.verbatim_prefixes)]
        for name, hashed_name, processed, subst in super()._post_process(
            paths, adjustable, hashed_files
        ):
            # copied as they are: nothing left to substitute in a later pass
            yield name, hashed_name, processed, subst and name in adjustable
