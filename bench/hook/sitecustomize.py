"""Loaded by every Python process started with this folder on its PYTHONPATH: with
LOOP_STALLS_DIR in the environment, it times the process's event loop callbacks
(bench/loop_stalls.py)."""

import os
import sys
from pathlib import Path

if os.environ.get("LOOP_STALLS_DIR"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.loop_stalls import install

    install(os.environ["LOOP_STALLS_DIR"])
