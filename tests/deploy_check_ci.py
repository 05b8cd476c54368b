#!/usr/bin/env python3
"""Checks that deploy_check.py fails under CI=true when a tool is missing, and skips otherwise.

    deploy_check_ci.py --source DIR --coordinator BIN --worker BIN

Runs the systemd part with a PATH that holds no systemd-analyze.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def run_check(args, ci):
    """Runs deploy_check.py systemd with an empty PATH; returns (exit code, output)."""
    with tempfile.TemporaryDirectory() as empty:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env["PATH"] = empty
        if ci:
            env["CI"] = "true"
        done = subprocess.run(
            [sys.executable, os.path.join(args.source, "tests", "deploy_check.py"), "systemd",
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


if __name__ == "__main__":
    main()
