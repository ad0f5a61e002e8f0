"""``python -m toolcall.vllm --path``: the plugin file's path; ``--names``: the parser names."""

from __future__ import annotations

import argparse

import toolcall
from toolcall.vllm import parser_name, plugin_path


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m toolcall.vllm", description=__doc__)
    ap.add_argument("--path", action="store_true", help="print the plugin file's path")
    ap.add_argument("--names", action="store_true", help="print the parser names, one a line")
    args = ap.parse_args()
    if args.names:
        for d in toolcall.dialects():
            print(parser_name(d))
    if args.path or not args.names:
        print(plugin_path())


main()
