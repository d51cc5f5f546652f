package dev.resilience.sample.client;

/**
 * The partner answered {@link AsyncInvoiceClient} with a status other than {@code 200}; its
 * retry policy, {@code resilience.retries.partner-async}, retries it.
 */
public class PartnerStatusException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final int status;

	/**
	 * Creates the exception.
	 * @param status the HTTP status the partner answered
	 * @param uri the request's URI
	 */
	public PartnerStatusException(int status, String uri) {
		super("Partner answered " + status + " to GET " + uri);
		this.status = status;
	}

	/**
	 * Returns the HTTP status the partner answered.
	 * @return the status code
	 */
	public int getStatus() {
		return this.status;
	}

}
