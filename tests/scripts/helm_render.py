"""Rendering the chart offline, for tests/scripts/helm_chart_test.sh and helm_dry_run_test.sh.

helm runs with HELM_CACHE_HOME, HELM_CONFIG_HOME and HELM_DATA_HOME under a temporary
directory and KUBECONFIG pointing at a file that does not exist: `helm template` and
`helm lint` never look anything up, anywhere. The manifests are parsed with PyYAML when it is
installed, else turned into JSON by `kubectl annotate --local -o json` (which reads files and
never contacts a server), and compared as plain data.
"""
import json
import os
import subprocess
import tempfile


class Helm:
    def __init__(self, helm, kubectl, chart, workdir=None):
        self.helm = helm
        self.kubectl = kubectl
        self.chart = chart
        self.dir = workdir or tempfile.mkdtemp(prefix="batlehub-helm-")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.dir,
            "HELM_CACHE_HOME": os.path.join(self.dir, "cache"),
            "HELM_CONFIG_HOME": os.path.join(self.dir, "config"),
            "HELM_DATA_HOME": os.path.join(self.dir, "data"),
            "KUBECONFIG": os.path.join(self.dir, "no-kubeconfig"),
        }
        self._n = 0
        try:
            if os.environ.get("BATLEHUB_TEST_NO_PYYAML") == "1":
                raise ImportError
            import yaml  # noqa: F401
            self.yaml = yaml
        except ImportError:
            self.yaml = None

    def values_file(self, data):
        """A values file holding `data` (JSON is YAML)."""
        self._n += 1
        path = os.path.join(self.dir, f"values-{self._n}.json")
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    def _args(self, values, sets):
        args = []
        for v in values:
            args += ["-f", v if isinstance(v, str) else self.values_file(v)]
        for s in sets:
            args += ["--set", s]
        return args

    def lint(self, values=(), sets=()):
        return subprocess.run([self.helm, "lint", "--strict", self.chart] + self._args(values, sets),
                              capture_output=True, text=True, env=self.env, timeout=120)

    def template_raw(self, values=(), sets=(), namespace="batlehub", release="t", extra=()):
        return subprocess.run([self.helm, "template", release, self.chart, "--namespace", namespace]
                              + self._args(values, sets) + list(extra),
                              capture_output=True, text=True, env=self.env, timeout=120)

    def template(self, values=(), sets=(), namespace="batlehub", release="t", extra=()):
        """The rendered objects, as a list of dicts; raises with helm's stderr on failure."""
        p = self.template_raw(values, sets, namespace, release, extra)
        if p.returncode != 0:
            raise RuntimeError(f"helm template failed ({p.returncode}): {p.stderr.strip()}")
        return self.parse(p.stdout)

    def parse(self, text):
        if self.yaml is not None:
            return [d for d in self.yaml.safe_load_all(text) if d]
        # kubectl: one JSON document per object, each with our marker annotation to drop.
        marker = "batlehub.test/parsed"
        p = subprocess.run([self.kubectl, "annotate", "--local", "-f", "-", "-o", "json", f"{marker}=1"],
                           input=text, capture_output=True, text=True, env=self.env, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"kubectl could not read the manifests: {p.stderr.strip()}")
        out, dec, s, i = [], json.JSONDecoder(), p.stdout, 0
        while True:
            while i < len(s) and s[i].isspace():
                i += 1
            if i >= len(s):
                break
            obj, i = dec.raw_decode(s, i)
            items = obj["items"] if obj.get("kind") == "List" else [obj]
            for o in items:
                ann = o.get("metadata", {}).get("annotations", {})
                ann.pop(marker, None)
                if not ann:
                    o["metadata"].pop("annotations", None)
                out.append(o)
        return out


def key(obj):
    """(kind, namespace, name): what identifies a rendered object."""
    md = obj.get("metadata", {})
    return (obj.get("kind"), md.get("namespace", ""), md.get("name"))


def by_key(objs):
    return {key(o): o for o in objs}


def of_kind(objs, kind):
    return [o for o in objs if o.get("kind") == kind]
