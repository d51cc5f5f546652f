package dev.resilience.sample.demo;

import java.util.List;

/**
 * What fetching a run of invoices from a flaky partner came to.
 *
 * @param calls the invoices asked for
 * @param succeeded the calls that returned an invoice
 * @param failed the calls that failed after retrying
 * @param retries the retries made over all calls
 * @param invoices each call, in order
 */
public record RetryReport(int calls, int succeeded, int failed, int retries, List<InvoiceCall> invoices) {

	/**
	 * One call.
	 *
	 * @param id the invoice asked for
	 * @param outcome {@code fetched}, or the failure and how retrying ended
	 * @param attempts the attempts made
	 * @param history each attempt: number, delay before it, duration, outcome
	 */
	public record InvoiceCall(long id, String outcome, int attempts, List<String> history) {
	}

}
