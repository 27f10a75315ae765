"""Snakemake logger plugin `ablation` (``--logger ablation``, set in workflow/profiles/default): the
screen of ablation.progress, one line per finished run and a line of how far the run is; Snakemake's
log file (.snakemake/log/) keeps its full output. Snakemake finds plugins by this package's name."""

from snakemake.logging import ColorizingTextHandler, DefaultFilter, DefaultFormatter
from snakemake_interface_logger_plugins.base import LogHandlerBase


class LogHandler(LogHandlerBase):
    def __post_init__(self) -> None:
        from ablation import progress  # here, not at import: Snakemake imports every plugin at its start

        s = self.common_settings
        stream = progress.stream_of(s.stdout)
        fallback = ColorizingTextHandler(nocolor=s.nocolor, stream=stream)
        fallback.addFilter(DefaultFilter(s.quiet, s.debug_dag, s.verbose, s.dryrun, s.printshellcmds))
        fallback.setFormatter(DefaultFormatter(s.quiet, s.show_failed_logs))
        self.screen = progress.Screen(stream, fallback, passthrough=s.dryrun or s.verbose or s.debug_dag, quiet=s.quiet)

    def emit(self, record) -> None:
        try:
            self.screen.emit(record)
        except Exception:  # noqa: BLE001  (a display problem must never stop the workflow)
            self.handleError(record)

    def close(self) -> None:
        self.screen.close()
        super().close()

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False
