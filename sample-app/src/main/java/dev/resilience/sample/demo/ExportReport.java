package dev.resilience.sample.demo;

/**
 * What {@code GET /demo/export} did.
 *
 * @param id the export's id
 * @param status the export's final status, {@code DONE}
 * @param statusChecks how many times the client asked the partner for the status
 * @param elapsedMillis how long starting and waiting for the export took
 */
public record ExportReport(String id, String status, int statusChecks, long elapsedMillis) {
}
