"""tools/demo: differentiate the examples, print their generated source and gradients."""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = ["seed_loss.py", "while_loop.py", "rnn.py", "mlp.py"]


def main():
    for name in EXAMPLES:
        path = os.path.join(HERE, "..", "examples", name)
        print("=" * 78)
        print(f"examples/{name}")
        print("=" * 78)
        sys.stdout.flush()
        runpy.run_path(path, run_name="__main__")
        print()


if __name__ == "__main__":
    main()
