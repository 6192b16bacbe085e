"""python3 -m specula script.py [args]: run a script with the engine on."""
import os
import runpy
import sys


def main():
    if len(sys.argv) < 2:
        print("usage: python3 -m specula script.py [args...]", file=sys.stderr)
        return 2
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    import specula
    specula.enable()
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
