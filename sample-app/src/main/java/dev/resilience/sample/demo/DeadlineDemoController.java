package dev.resilience.sample.demo;

import java.util.ArrayList;
import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.DeadlineExceededException;
import dev.resilience.sample.client.CompletionClient;
import dev.resilience.sample.client.HttpWorker;

/**
 * {@code GET /demo/deadline?calls=4} sends one prompt the partner hangs on, which comes back as
 * a timeout at the deadline, then {@code calls} ordinary prompts, which the pool keeps serving.
 */
@RestController
@RequestMapping("/demo")
public class DeadlineDemoController {

	private static final int MAX_CALLS = 100;

	private final CompletionClient client;

	private final ConnectionPool<HttpWorker> workers;

	public DeadlineDemoController(CompletionClient client, ConnectionPool<HttpWorker> workers) {
		this.client = client;
		this.workers = workers;
	}

	@GetMapping("/deadline")
	public DeadlineReport deadline(@RequestParam(defaultValue = "4") int calls) {
		if (calls < 1 || calls > MAX_CALLS) {
			throw new IllegalArgumentException("calls must be between 1 and " + MAX_CALLS + " but was " + calls);
		}
		String hung;
		long start = System.nanoTime();
		try {
			hung = "answered: " + this.client.complete("never answered", true).completion().text();
		}
		catch (DeadlineExceededException ex) {
			hung = ex.getClass().getSimpleName() + " after " + ex.getElapsed().toMillis() + "ms";
		}
		long hungMillis = (System.nanoTime() - start) / 1_000_000;
		List<String> afterwards = new ArrayList<>(calls);
		for (int i = 1; i <= calls; i++) {
			CompletionClient.Answer answer = this.client.complete("prompt " + i, false);
			afterwards.add("worker " + answer.worker() + ": " + answer.completion().text());
		}
		return new DeadlineReport(hung, hungMillis, afterwards, this.workers.getStats());
	}

	/**
	 * What the demo saw.
	 *
	 * @param hungCall how the call the partner hung on ended
	 * @param hungCallMillis how long its caller waited
	 * @param afterwards the ordinary calls made afterwards, each with the worker that served it
	 * @param pool what the pool holds now
	 */
	public record DeadlineReport(String hungCall, long hungCallMillis, List<String> afterwards,
			ConnectionPoolStats pool) {
	}

}
