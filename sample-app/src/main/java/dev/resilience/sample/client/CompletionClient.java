package dev.resilience.sample.client;

import org.springframework.stereotype.Service;

import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.WithConnection;
import dev.resilience.sample.partner.PartnerCompletionsController.Completion;

/**
 * Asks the partner's slow completions endpoint through the pool {@code partner-workers}: one
 * 15 s deadline ({@code sample.partner.deadline}) covers waiting for a worker and the request,
 * so a partner that hangs costs a caller 15 s at most and never starves the pool.
 */
@Service
public class CompletionClient {

	private final ConnectionPool<HttpWorker> workers;

	public CompletionClient(ConnectionPool<HttpWorker> workers) {
		this.workers = workers;
	}

	@WithConnection(pool = "partner-workers", timeout = "${sample.partner.deadline:15s}")
	public Answer complete(String prompt, boolean hang) {
		HttpWorker worker = this.workers.current();
		return new Answer(worker.id(), worker.complete(prompt, hang));
	}

	/**
	 * A completion and the worker that fetched it.
	 *
	 * @param worker the worker's number
	 * @param completion the partner's answer
	 */
	public record Answer(int worker, Completion completion) {
	}

}
