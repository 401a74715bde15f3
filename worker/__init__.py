"""The Python of a page's Web Worker: ``live`` runs the page's figures, ``cells`` a reader's
code cells (in a worker of their own), ``deferred`` fetches, on the first import a restored
worker's heap cannot serve, the files left for later, and ``patches`` carries Bokeh document
patches between the worker and the page.
"""
