"""The fallback measure when /usr/bin/time is missing: a fresh wrapper process whose
RUSAGE_CHILDREN covers only the measured command.

Usage: python -m bench.probes.rusage STDOUT_DEVNULL(1|0) COMMAND..."""


def main() -> None:
    import json
    import resource
    import subprocess
    import sys

    r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL if sys.argv[1] == "1" else None)
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write("\n@@RUSAGE " + json.dumps([u.ru_maxrss, u.ru_utime + u.ru_stime]) + "\n")
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
