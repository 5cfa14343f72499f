"""The library's reports: name, the traces each covers, whether it needs --trace (read-only).

Usage: python -m bench.probes.reports_list"""


def main() -> None:
    import json

    from tracewh import reports

    print(json.dumps([[r.name, list(r.traces), r.needs_trace] for r in reports.all_reports().values()]))


if __name__ == "__main__":
    main()
