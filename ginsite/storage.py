"""Static files storage of production mode (DEBUG off)."""
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's hashed and compressed files, with the imports between JS modules
    rewritten to the hashed names too: the table's modules are then cached for good and
    the ``modulepreload`` links of the page fetch the very URLs the imports ask for."""

    support_js_module_import_aggregation = True
