package dev.resilience.autoconfigure.ratelimit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A partner API on a loopback port that allows {@code limit} requests per key in each fixed window
 * of {@code windowMillis} (counted from its start), as a rate-limited vendor does: a request over
 * the limit is answered {@code 429} with {@code Retry-After} (whole seconds to the next window,
 * rounded up). The key is the path's last segment: {@code GET /customers/acme}.
 */
final class FakePartner implements AutoCloseable {

	private final HttpServer server;

	private final int limit;

	private final long windowMillis;

	private final long start = System.currentTimeMillis();

	private final Map<String, int[]> windows = new ConcurrentHashMap<>();

	private final AtomicInteger served = new AtomicInteger();

	private final AtomicInteger throttled = new AtomicInteger();

	FakePartner(int limit, long windowMillis) throws IOException {
		this.limit = limit;
		this.windowMillis = windowMillis;
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.setExecutor(Executors.newFixedThreadPool(16));
		this.server.createContext("/customers/", this::answer);
		this.server.start();
	}

	private void answer(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		String key = path.substring(path.lastIndexOf('/') + 1);
		long elapsed = System.currentTimeMillis() - this.start;
		int window = (int) (elapsed / this.windowMillis);
		boolean admitted;
		int[] counted = this.windows.compute(key, (k, state) -> {
			int[] next = (state == null || state[0] != window) ? new int[] { window, 0 } : state;
			next[1]++;
			return next;
		});
		admitted = counted[1] <= this.limit;
		byte[] body;
		if (admitted) {
			this.served.incrementAndGet();
			body = ("served " + key).getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
		}
		else {
			this.throttled.incrementAndGet();
			long untilNext = (window + 1) * this.windowMillis - elapsed;
			exchange.getResponseHeaders().add("Retry-After", Long.toString((untilNext + 999) / 1000));
			body = "slow down".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(429, body.length);
		}
		exchange.getResponseBody().write(body);
		exchange.close();
	}

	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	int served() {
		return this.served.get();
	}

	int throttled() {
		return this.throttled.get();
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
