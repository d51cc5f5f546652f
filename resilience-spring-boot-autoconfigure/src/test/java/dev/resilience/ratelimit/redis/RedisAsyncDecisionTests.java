package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisRateLimitStore#reserveAsync(String, long, long)} and the reservation's async
 * give-back and return, against a real {@code redis-server} and a cluster of three masters: exact
 * decisions, no thread held (BlockHound watches the calling Reactor thread and Lettuce's event
 * loops), the decision timeout kept while Redis is frozen, and nothing lost or doubled.
 */
class RedisAsyncDecisionTests {

	/**
	 * The decision timeout of the test on a frozen server: long enough that a caller returning at
	 * once is told apart from one held for it, even on a loaded machine (a call took 111 ms there).
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** What a completion may take beyond the timeout on a loaded machine (300 ms was missed). */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	/**
	 * The decision timeout of the tests on a server that answers: no decision there may time out,
	 * however slow a loaded machine makes a round trip (300 ms turned decisions into failures).
	 */
	private static final Duration ANSWERING = Duration.ofSeconds(10);

	private static RedisServer server;

	private static RedisScriptRunner serverRunner;

	private static RedisScriptRunner clusterRunner;

	@BeforeAll
	static void start() {
		// a server of its own: these tests freeze it
		server = RedisServer.start();
		serverRunner = server.runner();
		clusterRunner = RedisServer.Cluster.shared().runner();
		// after connecting: the classes Lettuce loads then would each pass BlockHound's transformer
		BlockHound.install();
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	static Stream<Arguments> targets() {
		return Stream.of(Arguments.of(Named.of("server", new Target(() -> serverRunner, () -> List.of(server), () -> {
		}))), Arguments.of(Named.of("cluster", new Target(() -> clusterRunner,
				() -> RedisServer.Cluster.shared().masters(), () -> RedisServer.Cluster.shared().awaitOk()))));
	}

	@Test
	void blockHoundCatchesABlockingCallOnAReactorThread() {
		// so that the frozen-Redis test would fail, should a decision block its caller
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> Mono.fromCallable(() -> {
				Thread.sleep(1);
				return 1;
			}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5)))
			.havingRootCause()
			.isInstanceOf(BlockingOperationError.class);
	}

	@ParameterizedTest
	@MethodSource("targets")
	void asyncDecisionsAdmitExactlyTheLimit(Target target) {
		RedisRateLimitStore store = target.store(RateLimiterSettings.builder().window(5, Duration.ofHours(1)),
				ANSWERING);
		List<CompletableFuture<Reservation>> decisions = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			decisions.add(store.reserveAsync("k", 1, 0));
		}
		List<RateLimitDecision> decided = decisions.stream().map((decision) -> decision.join().getDecision()).toList();
		assertThat(decided).filteredOn(RateLimitDecision::isPermitted).hasSize(5);
		assertThat(decided).filteredOn((decision) -> !decision.isPermitted())
			.hasSize(3)
			.allSatisfy((decision) -> assertThat(decision.getRetryAfter()).isPositive());
		// an admitted call given back, as if it had never asked
		Reservation admitted = decisions.get(0).join();
		assertThat(admitted.getDecision().isPermitted()).isTrue();
		admitted.cancelAsync().join();
		admitted.cancelAsync().join();
		assertThat(store.inspect("k").getQuotas().get(0).remaining()).isEqualTo(1);
		assertThat(store.errorCount()).isZero();
	}

	@ParameterizedTest
	@MethodSource("targets")
	void asyncReleaseReturnsTheConcurrencyPermit(Target target) throws Exception {
		RedisRateLimitStore store = target.store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofHours(1)),
				ANSWERING);
		Reservation held = store.reserveAsync("k", 1, 0).join();
		assertThat(held.getDecision().isPermitted()).isTrue();
		RateLimitDecision rejected = store.reserveAsync("k", 1, 0).join().getDecision();
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.isConcurrencyLimited()).isTrue();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		try {
			long start = System.nanoTime();
			store.awaitPermitAsync("k", TimeUnit.SECONDS.toNanos(30), scheduler).get(10, TimeUnit.SECONDS);
			// a poll: at most every 10 ms, never the whole wait (30 s; 10 s leaves room for a loaded machine)
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
			CompletableFuture<Void> cancelled = store.awaitPermitAsync("k", TimeUnit.SECONDS.toNanos(30), scheduler);
			cancelled.cancel(false);
			assertThat(cancelled).isCancelled();
		}
		finally {
			scheduler.shutdownNow();
		}
		held.releaseAsync().join();
		Reservation next = store.reserveAsync("k", 1, 0).join();
		assertThat(next.getDecision().isPermitted()).isTrue();
		next.releaseAsync().join();
		assertThat(store.errorCount()).isZero();
	}

	@ParameterizedTest
	@MethodSource("targets")
	@Tag("not-under-mutation") // freezes the shared cluster: see RedisClusterOutageTests in the mutation profile
	void frozenRedisCompletesTheDecisionOnTimeWithoutHoldingAThread(Target target) throws Exception {
		RedisRateLimitStore store = target.store(RateLimiterSettings.builder()
			.window(5, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED), TIMEOUT);
		assertThat(store.reserveAsync("k", 1, 0).join().getDecision().isPermitted()).isTrue();
		target.freeze();
		try {
			long start = System.nanoTime();
			// on a Reactor thread that must never block: BlockHound fails the call if it does
			Decided pending = Mono.fromCallable(() -> {
				long called = System.nanoTime();
				CompletableFuture<Reservation> decision = store.reserveAsync("k", 1, 0);
				return new Decided(decision, System.nanoTime() - called);
			}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
			// The caller is not held for the decision: a call that waited for the frozen server would
			// take the whole timeout.
			assertThat(Duration.ofNanos(pending.callNanos())).isLessThan(TIMEOUT);
			assertThat(pending.decision()).isNotDone();
			RateLimitDecision decision = pending.decision().get(TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS)
				.getDecision();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(TIMEOUT, TIMEOUT.plus(MARGIN));
			assertThat(decision.isPermitted()).isFalse();
			assertThat(decision.getRetryAfter()).isEqualTo(RedisRateLimitStore.FAILURE_RETRY_AFTER);
			assertThat(store.errorCount()).isEqualTo(1);
		}
		finally {
			target.thaw();
		}
		// the command sent while it was frozen ran late and took nothing: 4 left, once decisions resume
		long back = System.nanoTime();
		int admitted = 0;
		while (true) {
			long errors = store.errorCount();
			RateLimitDecision decision = store.reserveAsync("k", 1, 0).join().getDecision();
			if (store.errorCount() == errors) {
				if (!decision.isPermitted()) {
					break;
				}
				admitted++;
			}
			else {
				// about a second once Redis is back; 3 s leaves room for a loaded machine, and still
				// fails a store that waits for anything longer (a backoff, a reconnection)
				assertThat(Duration.ofNanos(System.nanoTime() - back)).as("limiting resumed").isLessThan(Duration.ofSeconds(3));
				TimeUnit.MILLISECONDS.sleep(10);
			}
		}
		assertThat(admitted).isEqualTo(4);
	}

	@ParameterizedTest
	@MethodSource("targets")
	@Tag("not-under-mutation") // freezes the shared cluster: see RedisClusterOutageTests in the mutation profile
	void cancellingAPendingDecisionGivesBackWhatRedisTook(Target target) {
		RedisRateLimitStore store = target.store(RateLimiterSettings.builder().window(5, Duration.ofHours(1)),
				ANSWERING);
		assertThat(store.reserveAsync("k", 1, 0).join().getDecision().isPermitted()).isTrue();
		target.resetStats();
		CompletableFuture<Reservation> pending;
		target.freeze();
		try {
			pending = store.reserveAsync("k", 1, 0);
			assertThat(pending.cancel(true)).isTrue();
		}
		finally {
			target.thaw();
		}
		// Redis ran the decision in time and admitted it; its reply finds the caller gone: given back
		// the bound only ends the wait if the reply never comes; it is not what the test measures
		await().atMost(Duration.ofSeconds(10)).until(() -> target.evalshaCalls() >= 2);
		assertThat(store.inspect("k").getQuotas().get(0).remaining()).isEqualTo(4);
		assertThat(store.errorCount()).isZero();
	}

	record Decided(CompletableFuture<Reservation> decision, long callNanos) {
	}

	/**
	 * A standalone server or a cluster, the runner on it, the servers to freeze, and what waits
	 * for them to serve again once thawed (the shared cluster's other tests need it whole).
	 */
	record Target(Supplier<RedisScriptRunner> runner, Supplier<List<RedisServer>> servers, Runnable awaitServing) {

		RedisRateLimitStore store(RateLimiterSettings.Builder settings, Duration timeout) {
			return new RedisRateLimitStore("async", settings.store(RedisRateLimitStore.TYPE).build(), this.runner.get(),
					"async-" + System.nanoTime() + ":", timeout);
		}

		void freeze() {
			this.servers.get().forEach(RedisServer::freeze);
		}

		void thaw() {
			this.servers.get().forEach(RedisServer::thaw);
			this.awaitServing.run();
		}

		void resetStats() {
			this.servers.get().forEach((server) -> server.commands().configResetstat());
		}

		long evalshaCalls() {
			return this.servers.get().stream().mapToLong((server) -> server.commandCalls("evalsha")).sum();
		}

	}

}
