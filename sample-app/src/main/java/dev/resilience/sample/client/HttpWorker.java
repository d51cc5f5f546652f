package dev.resilience.sample.client;

import org.springframework.web.client.RestClient;

import dev.resilience.sample.partner.PartnerCompletionsController.Completion;

/**
 * One pooled worker that talks to the partner's completions endpoint; the pool
 * {@code partner-workers} holds a few of them.
 */
public class HttpWorker {

	private final int id;

	private final RestClient restClient;

	HttpWorker(int id, RestClient restClient) {
		this.id = id;
		this.restClient = restClient;
	}

	public int id() {
		return this.id;
	}

	public Completion complete(String prompt, boolean hang) {
		return this.restClient.get()
			.uri("/partner/completions?prompt={prompt}&hang={hang}", prompt, hang)
			.retrieve()
			.body(Completion.class);
	}

}
