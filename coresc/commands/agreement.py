"""PLACEHOLDER: `coresc agreement` is being written (replace this whole module)."""

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError("coresc agreement")
