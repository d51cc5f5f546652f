package dev.resilience.autoconfigure.web.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * A partner on a loopback port: answers {@code 200 ok} unless told to answer otherwise, counts the
 * requests it received by the host they were sent to ({@code localhost} or {@code 127.0.0.1}, the
 * same server), and can hold its answers until released, so that a test can cancel a request in
 * flight. A test holds one in an {@code @AutoClose} field: a new server for each test, stopped
 * after it.
 */
final class PartnerServer implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();

	private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();

	private volatile CountDownLatch held = new CountDownLatch(0);

	private final AtomicInteger waiting = new AtomicInteger();

	private volatile Runnable onEachRequest = () -> {
	};

	PartnerServer() {
		try {
			this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.server.setExecutor(this.threads);
		this.server.createContext("/", (exchange) -> {
			String host = exchange.getRequestHeaders().getFirst("Host");
			this.received.computeIfAbsent(host.substring(0, host.lastIndexOf(':')), (name) -> new AtomicInteger())
				.incrementAndGet();
			this.onEachRequest.run();
			this.waiting.incrementAndGet();
			try {
				this.held.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.waiting.decrementAndGet();
			}
			Answer answer = this.answers.poll();
			if (answer == null) {
				answer = new Answer(200, Map.of());
			}
			byte[] body = ((answer.status() < 400) ? "ok" : "slow down").getBytes(StandardCharsets.UTF_8);
			answer.fields().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
			exchange.sendResponseHeaders(answer.status(), body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.server.start();
	}

	/**
	 * Returns the base URL of the server through a host name.
	 * @param host {@code localhost} or {@code 127.0.0.1}
	 * @return the URL, without a trailing slash
	 */
	String url(String host) {
		return "http://" + host + ":" + this.server.getAddress().getPort();
	}

	/**
	 * Returns the base URL, through {@code localhost}, of a server stopped already: a request to
	 * it is refused.
	 * @return the URL, without a trailing slash
	 */
	static String closedUrl() {
		PartnerServer gone = new PartnerServer();
		String url = gone.url("localhost");
		gone.close();
		return url;
	}

	/** Answers the next request with a status and header fields, instead of {@code 200 ok}. */
	void answerNext(int status, Map<String, String> fields) {
		this.answers.add(new Answer(status, fields));
	}

	/** Runs the action as each request from now on arrives, before it is held or answered. */
	void onEachRequest(Runnable action) {
		this.onEachRequest = action;
	}

	/** Holds every answer from now until {@link #release()}. */
	void hold() {
		this.held = new CountDownLatch(1);
	}

	/** Sends the answers held. */
	void release() {
		this.held.countDown();
	}

	/** How many requests wait for their answers now. */
	int waiting() {
		return this.waiting.get();
	}

	/** How many requests were sent through a host name. */
	int received(String host) {
		AtomicInteger count = this.received.get(host);
		return (count != null) ? count.get() : 0;
	}

	@Override
	public void close() {
		release();
		this.server.stop(0);
		this.threads.shutdownNow();
	}

	private record Answer(int status, Map<String, String> fields) {
	}

}
