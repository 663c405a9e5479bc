"""The static files' storage with DEBUG off: WhiteNoise's compressed, hashed files, with
the relative paths of JavaScript modules' `import` statements rewritten to the hashed
names (static/js/live/: `import ... from "./morph.js"` becomes "./morph.<hash>.js"), so
a page never runs one version of a module with another's imports."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    # Django's own switch for `import`/`export` paths in *.js (experimental, off by
    # default); only relative paths ("./", "../", "/") are rewritten.
    support_js_module_import_aggregation = True
