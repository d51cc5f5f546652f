package dev.resilience.sample.demo;

import java.util.ArrayList;
import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClientException;

import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.RetryAttempt;
import dev.resilience.sample.client.InvoiceClient;
import dev.resilience.sample.demo.RetryReport.InvoiceCall;

/**
 * {@code GET /demo/retries?calls=12} fetches invoices 1 to 12 from the flaky partner through the
 * retrying client and reports each call's history of attempts.
 */
@RestController
@RequestMapping("/demo")
public class RetryDemoController {

	private static final int MAX_CALLS = 100;

	private final InvoiceClient client;

	private final LastRetry lastRetry;

	public RetryDemoController(InvoiceClient client, LastRetry lastRetry) {
		this.client = client;
		this.lastRetry = lastRetry;
	}

	@GetMapping("/retries")
	public RetryReport retries(@RequestParam(defaultValue = "12") int calls) {
		if (calls < 1 || calls > MAX_CALLS) {
			throw new IllegalArgumentException("calls must be between 1 and " + MAX_CALLS + " but was " + calls);
		}
		List<InvoiceCall> invoices = new ArrayList<>(calls);
		int failed = 0;
		for (long id = 1; id <= calls; id++) {
			String outcome;
			try {
				this.client.fetchInvoice(id);
				outcome = "fetched";
			}
			catch (RestClientException ex) {
				failed++;
				RetriesExhaustedException exhausted = RetriesExhaustedException.of(ex);
				outcome = ex.getMessage() + ((exhausted != null) ? "; " + exhausted.getMessage() : "");
			}
			List<RetryAttempt> attempts = this.lastRetry.take();
			invoices.add(new InvoiceCall(id, outcome, attempts.size(),
					attempts.stream().map(RetryAttempt::toString).toList()));
		}
		int retries = invoices.stream().mapToInt((call) -> call.attempts() - 1).sum();
		return new RetryReport(calls, calls - failed, failed, retries, invoices);
	}

}
