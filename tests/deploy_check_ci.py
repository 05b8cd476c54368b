#!/usr/bin/env python3
"""Checks deploy_check.py itself: it fails under CI=true when a tool is missing and skips
otherwise, and it refuses Kubernetes recipes that Debian 12's kubectl (1.20) cannot render.

    deploy_check_ci.py --source DIR --coordinator BIN --worker BIN

Runs the systemd part with a PATH that holds no systemd-analyze, the compose part with one that
holds no docker-compose (whose own validation it notes as not run, or fails under CI=true), and
the kustomize 2.0 form check on overlays written in the newer form only current kubectl
versions render, and the KEDA check on triggers that would scale the workers wrongly.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deploy_check  # noqa: E402


def run_check(args, ci, part="systemd"):
    """Runs a part of deploy_check.py with an empty PATH; returns (exit code, output)."""
    with tempfile.TemporaryDirectory() as empty:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["PATH"] = empty
        if ci:
            env["CI"] = "true"
        done = subprocess.run(
            [sys.executable, os.path.join(args.source, "tests", "deploy_check.py"), part,
             "--source", args.source, "--coordinator", args.coordinator, "--worker",
             args.worker], capture_output=True, text=True, env=env)
    return done.returncode, done.stdout + done.stderr


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--source", "--coordinator", "--worker"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    code, out = run_check(args, ci=True)
    if code != 1 or "FAIL: systemd-analyze is not installed (CI=true" not in out:
        sys.exit(f"under CI=true a missing systemd-analyze must fail the check; got {code}: {out}")
    code, out = run_check(args, ci=False)
    if code != 77 or "SKIP: systemd-analyze is not installed" not in out:
        sys.exit(f"without CI a missing systemd-analyze must skip the check; got {code}: {out}")
    print("ok: a missing tool fails under CI=true and skips otherwise")
    code, out = run_check(args, ci=True, part="compose")
    if code != 1 or "FAIL: docker-compose is not installed (CI=true" not in out:
        sys.exit(f"under CI=true a missing docker-compose must fail the check; got {code}: {out}")
    code, out = run_check(args, ci=False, part="compose")
    if code != 0 or "note: docker-compose is not installed" not in out:
        sys.exit(f"without CI a missing docker-compose must be noted; got {code}: {out}")
    print("ok: a missing docker-compose fails under CI=true and is noted otherwise")
    check_newer_form_refused()
    check_keda_triggers_refused()


def check_newer_form_refused():
    """Requires the form check to refuse a directory under `resources` and inline `patches`,
    which Debian 12's kubectl rejects, and to accept the committed overlays' form."""
    yaml = deploy_check.load_yaml()
    newer = {
        "directory": "resources:\n  - ../../base\n",
        "inline": "bases:\n  - ../../base\npatches:\n  - target: {kind: Deployment}\n"
                  "    patch: '[]'\n",
    }
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "base"))
        for name, text in newer.items():
            os.makedirs(os.path.join(root, "overlays", name))
            with open(os.path.join(root, "overlays", name, "kustomization.yaml"), "w") as f:
                f.write(text)
            try:
                deploy_check.check_kustomize_2_form(yaml, root, os.path.join("overlays", name))
            except deploy_check.CheckError as e:
                print(f"ok: refused: {e}")
                continue
            sys.exit(f"the kustomize 2.0 form check accepted the newer form ({name})")



def check_keda_triggers_refused():
    """Requires the KEDA check to refuse a trigger whose threshold is not one worker pod's
    cores (the pods would be too many or too few) or whose query is not the cores wanted."""
    good = {"type": "prometheus", "metadata": {"serverAddress": "http://prometheus:9090",
                                               "query": "sum(sparring_cores_wanted)",
                                               "threshold": "2"}}
    deploy_check.check_keda_scaling("ok", "w", {"maxReplicaCount": 4, "triggers": [good]}, 2, 0)
    bad = {
        "threshold": dict(good, metadata=dict(good["metadata"], threshold="3")),
        "query": dict(good, metadata=dict(good["metadata"], query="sum(sparring_pairs_free)")),
    }
    for name, trigger in bad.items():
        try:
            deploy_check.check_keda_scaling(name, "w", {"maxReplicaCount": 4,
                                                        "triggers": [trigger]}, 2, 0)
        except deploy_check.CheckError as e:
            print(f"ok: refused: {e}")
            continue
        sys.exit(f"the KEDA check accepted a bad trigger ({name})")


if __name__ == "__main__":
    main()
