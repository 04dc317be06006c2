"""The null backend: loads nothing, runs nothing. Its latency is the harness's own cost per query."""


class Backend(object):
    name = "null"

    def __init__(self, root=None, tools=None, workdir=None):
        self._options = {}

    def load(self, path, inputs, options):
        self._options = dict(options or {})

    def run(self):
        return None

    def outputs(self):
        return []

    def describe(self):
        return {"runtime": "null", "version": "-", "providers": [], "options": self._options}

    def close(self):
        pass
