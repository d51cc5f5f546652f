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

import org.springframework.web.client.RestClient;

import dev.resilience.autoconfigure.LocalRestClients;

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

	/** When the first window began: the partner's windows are counted from it. */
	private volatile long start = System.currentTimeMillis();

	private final Map<String, int[]> windows = new ConcurrentHashMap<>();

	/** Served and refused calls by window, since the windows last started. */
	private final Map<Integer, AtomicInteger[]> byWindow = new ConcurrentHashMap<>();

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
		this.byWindow.computeIfAbsent(window, (w) -> new AtomicInteger[] { new AtomicInteger(), new AtomicInteger() })[admitted
				? 0 : 1].incrementAndGet();
		byte[] body;
		if (admitted) {
			body = ("served " + key).getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
		}
		else {
			long untilNext = (window + 1) * this.windowMillis - elapsed;
			exchange.getResponseHeaders().add("Retry-After", Long.toString((untilNext + 999) / 1000));
			body = "slow down".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(429, body.length);
		}
		exchange.getResponseBody().write(body);
		exchange.close();
	}

	/**
	 * Starts the windows afresh now, forgetting every count: a run measured over whole windows
	 * compares runs of the same windows.
	 */
	void startWindows() {
		this.windows.clear();
		this.byWindow.clear();
		this.start = System.currentTimeMillis();
	}

	/**
	 * Returns what the partner answered in its first windows since they started.
	 * @param windows how many windows
	 * @return the calls served, then the calls refused
	 */
	int[] answeredInFirst(int windows) {
		int[] counts = new int[2];
		for (int window = 0; window < windows; window++) {
			AtomicInteger[] answered = this.byWindow.get(window);
			if (answered != null) {
				counts[0] += answered[0].get();
				counts[1] += answered[1].get();
			}
		}
		return counts;
	}

	/** Returns a client of this partner that reads with a timeout (see {@link LocalRestClients}). */
	RestClient client() {
		return LocalRestClients.withTimeouts("http://127.0.0.1:" + this.server.getAddress().getPort());
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
