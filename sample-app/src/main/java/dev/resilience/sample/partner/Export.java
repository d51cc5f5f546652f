package dev.resilience.sample.partner;

/**
 * An asynchronous export as the partner API reports it.
 *
 * @param id the export's id
 * @param status {@code PENDING} while the partner prepares it, then {@code DONE}
 * @param statusChecks how many times the partner was asked for this export's status so far
 */
public record Export(String id, String status, int statusChecks) {
}
