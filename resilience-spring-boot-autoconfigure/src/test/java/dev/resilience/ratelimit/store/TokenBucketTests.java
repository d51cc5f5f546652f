package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.ratelimit.store.TokenBucket.Result;
import dev.resilience.ratelimit.store.TokenBucket.State;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The token-bucket arithmetic as a pure function, after ExWaiter's {@code limit_rate} examples. */
class TokenBucketTests {

	private static final long SECOND = 1_000_000_000L;

	/** ExWaiter's timestamp {@code 1678822656122} ms, in nanoseconds. */
	private static final long T0 = ms(1678822656122L);

	/** ExWaiter's clock reading rounded down to a whole second, where a new interval bucket is dated. */
	private static final long T0_SECOND = ms(1678822656000L);

	@Test
	void tokenBucketTakesCostWithoutRefillInExWaitersWorkedExample() {
		TokenBucketSettings settings = interval(5, 3, Duration.ofMillis(50));
		Result result = TokenBucket.tryTake(settings, new State(3, T0), T0 + ms(2), 2);
		assertThat(result.permitted()).isTrue();
		assertThat(result.remaining()).isEqualTo(1);
		assertThat(result.state()).isEqualTo(new State(1, T0));
		assertThat(result.waitNanos()).isZero();
		assertThat(result.nanosUntilRefill()).isEqualTo(ms(48));
	}

	@Test
	void tokenBucketReserveForNowMatchesTryTakeInExWaitersWorkedExample() {
		TokenBucketSettings settings = interval(5, 3, Duration.ofMillis(50));
		Result result = TokenBucket.reserve(settings, new State(3, T0), T0 + ms(2), 2);
		assertThat(result.permitted()).isTrue();
		assertThat(result.state()).isEqualTo(new State(1, T0));
		assertThat(result.waitNanos()).isZero();
		assertThat(result.nanosUntilRefill()).isEqualTo(ms(48));
	}

	@Test
	void tokenBucketRefillRateThreeAdmitsThreeThenRefillsOneInterval() {
		Bucket bucket = new Bucket(interval(3, 3, Duration.ofSeconds(1)), T0_SECOND);
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("ok 2");
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("ok 1");
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("ok 0");
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("error 0");
		assertThat(bucket.take(T0_SECOND + SECOND, 1)).isEqualTo("ok 2");
		assertThat(bucket.state).isEqualTo(new State(2, T0_SECOND + SECOND));
	}

	@Test
	void tokenBucketBurstLimitFiveStartsWithFive() {
		Bucket bucket = new Bucket(interval(5, 3, Duration.ofSeconds(1)), T0);
		assertThat(bucket.take(T0, 1)).isEqualTo("ok 4");
		assertThat(bucket.take(T0, 1)).isEqualTo("ok 3");
	}

	@Test
	void tokenBucketCostThreeOfTenLeavesOneAndRejects() {
		Bucket bucket = new Bucket(interval(10, 1, Duration.ofSeconds(1)), T0);
		assertThat(bucket.take(T0, 3)).isEqualTo("ok 7");
		assertThat(bucket.take(T0, 3)).isEqualTo("ok 4");
		assertThat(bucket.take(T0, 3)).isEqualTo("ok 1");
		assertThat(bucket.take(T0, 3)).isEqualTo("error 1");
	}

	@Test
	void tokenBucketIntervalOfFiftyMillisRefillsAfterFiftyMillis() {
		Bucket bucket = new Bucket(interval(1, 1, Duration.ofMillis(50)), T0_SECOND);
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("ok 0");
		assertThat(bucket.take(T0_SECOND, 1)).isEqualTo("error 0");
		assertThat(bucket.take(T0_SECOND + ms(50) - 1, 1)).isEqualTo("error 0");
		assertThat(bucket.take(T0_SECOND + ms(50), 1)).isEqualTo("ok 0");
	}

	@Test
	void tokenBucketNewIntervalBucketStartsItsPeriodsAtFirstUse() {
		// Keys first used at different times refill at different times: no burst of every key at
		// one grid line.
		TokenBucketSettings settings = interval(1, 1, Duration.ofMillis(50));
		assertThat(TokenBucket.full(settings, T0)).isEqualTo(new State(1, T0));
		Result taken = TokenBucket.tryTake(settings, TokenBucket.full(settings, T0), T0, 1);
		assertThat(taken.nanosUntilRefill()).isEqualTo(ms(50));
		Result later = TokenBucket.tryTake(settings, TokenBucket.full(settings, T0 + ms(7)), T0 + ms(7), 1);
		assertThat(later.nanosUntilRefill()).isEqualTo(ms(50));
	}

	@Test
	void tokenBucketIntervalKeepsPartlyElapsedPeriod() {
		Bucket bucket = new Bucket(interval(1, 1, Duration.ofMillis(100)), 0);
		assertThat(bucket.take(0, 1)).isEqualTo("ok 0");
		assertThat(bucket.take(ms(150), 1)).isEqualTo("ok 0");
		assertThat(bucket.state).isEqualTo(new State(0, ms(100)));
		assertThat(bucket.last.nanosUntilRefill()).isEqualTo(ms(50));
		assertThat(bucket.take(ms(200) - 1, 1)).isEqualTo("error 0");
		assertThat(bucket.last.nanosUntilRefill()).isEqualTo(1);
		assertThat(bucket.take(ms(200), 1)).isEqualTo("ok 0");
	}

	@Test
	void tokenBucketIntervalReserveKeepsPartlyElapsedPeriod() {
		TokenBucketSettings settings = interval(1, 1, Duration.ofMillis(100));
		Result first = TokenBucket.reserve(settings, new State(0, 0), ms(150), 1);
		assertThat(first.waitNanos()).isZero();
		assertThat(first.state()).isEqualTo(new State(0, ms(100)));
		Result second = TokenBucket.reserve(settings, first.state(), ms(150), 1);
		assertThat(second.waitNanos()).isEqualTo(ms(50));
		assertThat(second.state()).isEqualTo(new State(0, ms(200)));
	}

	@Test
	void tokenBucketIntervalAddsWholeRefillsOnlyAndStaysOnItsGrid() {
		TokenBucketSettings settings = interval(10, 3, Duration.ofMillis(100));
		assertThat(TokenBucket.refill(settings, new State(0, 0), ms(99))).isEqualTo(new State(0, 0));
		assertThat(TokenBucket.refill(settings, new State(0, 0), ms(100))).isEqualTo(new State(3, ms(100)));
		assertThat(TokenBucket.refill(settings, new State(0, 0), ms(250))).isEqualTo(new State(6, ms(200)));
		assertThat(TokenBucket.refill(settings, new State(0, 0), ms(400))).isEqualTo(new State(10, ms(400)));
		// full: later refills are lost, but the grid stays where it was
		assertThat(TokenBucket.refill(settings, new State(10, 0), ms(450))).isEqualTo(new State(10, ms(400)));
	}

	@Test
	void tokenBucketRefillsGreedilyAndKeepsTheEarnedFraction() {
		TokenBucketSettings settings = greedy(10, 10, Duration.ofSeconds(1));
		State empty = new State(0, 0);
		assertThat(TokenBucket.refill(settings, empty, ms(100) - 1)).isEqualTo(empty);
		assertThat(TokenBucket.refill(settings, empty, ms(100))).isEqualTo(new State(1, ms(100)));
		State at250 = TokenBucket.refill(settings, empty, ms(250));
		assertThat(at250).isEqualTo(new State(2, ms(200)));
		assertThat(TokenBucket.refill(settings, at250, ms(300))).isEqualTo(new State(3, ms(300)));
	}

	@Test
	void tokenBucketGreedyTakeKeepsTheEarnedFraction() {
		Bucket bucket = new Bucket(greedy(10, 10, Duration.ofSeconds(1)), 0);
		assertThat(bucket.take(0, 10)).isEqualTo("ok 0");
		assertThat(bucket.take(ms(250), 2)).isEqualTo("ok 0");
		assertThat(bucket.state).isEqualTo(new State(0, ms(200)));
		assertThat(bucket.last.nanosUntilRefill()).isEqualTo(ms(50));
		assertThat(bucket.take(ms(300) - 1, 1)).isEqualTo("error 0");
		assertThat(bucket.take(ms(300), 1)).isEqualTo("ok 0");
	}

	@Test
	void tokenBucketGreedyReserveKeepsTheEarnedFraction() {
		TokenBucketSettings settings = greedy(10, 10, Duration.ofSeconds(1));
		Result result = TokenBucket.reserve(settings, new State(0, 0), ms(250), 2);
		assertThat(result.waitNanos()).isZero();
		assertThat(result.state()).isEqualTo(new State(0, ms(200)));
		assertThat(TokenBucket.reserve(settings, result.state(), ms(250), 1).waitNanos()).isEqualTo(ms(50));
	}

	@Test
	void tokenBucketThatFillsUpLosesTheFractionOfATokenEarnedMeanwhile() {
		TokenBucketSettings settings = greedy(7, 1, Duration.ofSeconds(1));
		// full at 2s; the half token earned after that is lost, so the next token comes a whole second after 2.5s
		Result result = TokenBucket.tryTake(settings, new State(5, 0), ms(2500), 1);
		assertThat(result.state()).isEqualTo(new State(6, ms(2500)));
		assertThat(result.nanosUntilRefill()).isEqualTo(SECOND);
	}

	@Test
	void tokenBucketFullIntervalBucketKeepsTheGridOfItsFirstUse() {
		TokenBucketSettings settings = interval(10, 3, Duration.ofMillis(100));
		assertThat(TokenBucket.refill(settings, new State(10, ms(30)), ms(480))).isEqualTo(new State(10, ms(430)));
		Result taken = TokenBucket.tryTake(settings, new State(10, ms(30)), ms(480), 3);
		assertThat(taken.state()).isEqualTo(new State(7, ms(430)));
		assertThat(taken.nanosUntilRefill()).isEqualTo(ms(50));
	}

	@Test
	void tokenBucketGreedyRefillIsExactWhenElapsedTimesRateExceedsALong() {
		// a million tokens per second: elapsed nanoseconds times tokens per period pass 2^63 after about 2.6 hours
		TokenBucketSettings settings = greedy(1_000_000_000_000L, 1_000_000, Duration.ofSeconds(1));
		State empty = new State(0, 0);
		assertThat(TokenBucket.refill(settings, empty, 10_000 * SECOND))
			.isEqualTo(new State(10_000_000_000L, 10_000 * SECOND));
		assertThat(TokenBucket.refill(settings, empty, 100_000 * SECOND))
			.isEqualTo(new State(100_000_000_000L, 100_000 * SECOND));
	}

	@Test
	void tokenBucketStartsFull() {
		TokenBucketSettings settings = greedy(7, 1, Duration.ofSeconds(1));
		assertThat(TokenBucket.full(settings, 42)).isEqualTo(new State(7, 42));
		Result result = TokenBucket.tryTake(settings, TokenBucket.full(settings, 42), 42, 7);
		assertThat(result.permitted()).isTrue();
		assertThat(result.remaining()).isZero();
		assertThat(result.nanosUntilRefill()).isEqualTo(SECOND);
	}

	@Test
	void tokenBucketGreedyDropsTokensBeyondCapacity() {
		TokenBucketSettings settings = greedy(7, 1, Duration.ofSeconds(1));
		Result result = TokenBucket.tryTake(settings, new State(5, 0), 2 * SECOND, 1);
		assertThat(result.remaining()).isEqualTo(6);
		assertThat(result.state()).isEqualTo(new State(6, 2 * SECOND));
		assertThat(result.nanosUntilRefill()).isEqualTo(SECOND);
	}

	@Test
	void tokenBucketRejectsCostNotPositiveOrAboveCapacity() {
		TokenBucketSettings settings = greedy(5, 1, Duration.ofSeconds(1));
		State full = TokenBucket.full(settings, 0);
		assertThatIllegalArgumentException().isThrownBy(() -> TokenBucket.tryTake(settings, full, 0, 0))
			.withMessage("cost must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> TokenBucket.tryTake(settings, full, 0, -1))
			.withMessage("cost must be positive but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> TokenBucket.tryTake(settings, full, 0, 6))
			.withMessageStartingWith("cost 6 exceeds the token bucket's capacity of 5");
		assertThatIllegalArgumentException().isThrownBy(() -> TokenBucket.reserve(settings, full, 0, 0))
			.withMessage("cost must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> TokenBucket.reserve(settings, full, 0, 6))
			.withMessageStartingWith("cost 6 exceeds the token bucket's capacity of 5");
	}

	@Test
	void tokenBucketReserveReturnsExactWaitAndBlocksLaterCallers() {
		TokenBucketSettings settings = greedy(2, 1, Duration.ofSeconds(1));
		Result first = TokenBucket.reserve(settings, TokenBucket.full(settings, 0), 0, 1);
		assertThat(first.waitNanos()).isZero();
		assertThat(first.remaining()).isEqualTo(1);
		Result second = TokenBucket.reserve(settings, first.state(), 0, 2);
		assertThat(second.waitNanos()).isEqualTo(SECOND);
		assertThat(second.state()).isEqualTo(new State(0, SECOND));
		Result third = TokenBucket.reserve(settings, second.state(), 0, 1);
		assertThat(third.waitNanos()).isEqualTo(2 * SECOND);
		assertThat(third.state()).isEqualTo(new State(0, 2 * SECOND));
		// a bucket dated in the future admits nobody before its reservation, first come first served
		Result meanwhile = TokenBucket.tryTake(settings, third.state(), 1_500_000_000L, 1);
		assertThat(meanwhile.permitted()).isFalse();
		assertThat(meanwhile.state()).isEqualTo(third.state());
		assertThat(meanwhile.nanosUntilRefill()).isEqualTo(1_500_000_000L);
		assertThat(TokenBucket.tryTake(settings, third.state(), 3 * SECOND - 1, 1).permitted()).isFalse();
		assertThat(TokenBucket.tryTake(settings, third.state(), 3 * SECOND, 1).permitted()).isTrue();
	}

	@Test
	void tokenBucketAvailableAtIsExactForGreedyAndInterval() {
		State empty = new State(0, 0);
		assertThat(TokenBucket.availableAt(greedy(10, 3, Duration.ofSeconds(1)), empty, 0, 1)).isEqualTo(333_333_334L);
		assertThat(TokenBucket.availableAt(greedy(10, 3, Duration.ofSeconds(1)), empty, 0, 3)).isEqualTo(SECOND);
		assertThat(TokenBucket.availableAt(interval(10, 3, Duration.ofSeconds(1)), empty, 0, 1)).isEqualTo(SECOND);
		assertThat(TokenBucket.availableAt(interval(10, 3, Duration.ofSeconds(1)), empty, 0, 4)).isEqualTo(2 * SECOND);
		assertThat(TokenBucket.fullAt(interval(10, 3, Duration.ofSeconds(1)), empty)).isEqualTo(4 * SECOND);
	}

	@Test
	void tokenBucketArithmeticDoesNotOverflowForAMillionTokensPerDay() {
		long day = Duration.ofDays(1).toNanos();
		TokenBucketSettings settings = greedy(1_000_000, 1_000_000, Duration.ofDays(1));
		State empty = new State(0, 0);
		assertThat(TokenBucket.refill(settings, empty, day / 2)).isEqualTo(new State(500_000, day / 2));
		assertThat(TokenBucket.refill(settings, empty, day - 1).tokens()).isEqualTo(999_999);
		assertThat(TokenBucket.refill(settings, empty, day)).isEqualTo(new State(1_000_000, day));
		assertThat(TokenBucket.reserve(settings, empty, 0, 1_000_000).waitNanos()).isEqualTo(day);
		assertThat(TokenBucket.tryTake(settings, empty, 0, 1).nanosUntilRefill()).isEqualTo(86_400_000_000L / 1_000);
		assertThat(TokenBucket.fullAt(settings, empty)).isEqualTo(day);
	}

	@Test
	void tokenBucketIntervalWaitSaturatesInsteadOfOverflowing() {
		// a million tokens at one per day is 2,700 years away: more than a long of nanoseconds
		TokenBucketSettings perDay = interval(1_000_000, 1, Duration.ofDays(1));
		assertThat(TokenBucket.availableAt(perDay, new State(0, 0), 0, 1_000_000)).isEqualTo(Long.MAX_VALUE);
		assertThat(TokenBucket.availableAt(perDay, new State(0, 0), 0, 2)).isEqualTo(2 * Duration.ofDays(1).toNanos());
		// a period beyond a long of nanoseconds saturates to Long.MAX_VALUE nanoseconds
		TokenBucketSettings perMillennium = interval(2, 1, Duration.ofDays(365L * 1000));
		assertThat(perMillennium.refillPeriodNanos()).isEqualTo(Long.MAX_VALUE);
		assertThat(TokenBucket.availableAt(perMillennium, new State(0, 0), 0, 2)).isEqualTo(Long.MAX_VALUE);
		assertThat(TokenBucket.availableAt(perMillennium, new State(0, 0), 0, 1)).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void tokenBucketGreedyWaitSaturatesForHugeCapacity() {
		TokenBucketSettings settings = greedy(Long.MAX_VALUE, 1, Duration.ofDays(1));
		State full = TokenBucket.full(settings, 0);
		Result all = TokenBucket.tryTake(settings, full, 0, Long.MAX_VALUE);
		assertThat(all.permitted()).isTrue();
		assertThat(all.state()).isEqualTo(new State(0, 0));
		assertThat(all.nanosUntilRefill()).isEqualTo(Duration.ofDays(1).toNanos());
		assertThat(TokenBucket.availableAt(settings, all.state(), 0, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
		assertThat(TokenBucket.refill(settings, all.state(), 10 * Duration.ofDays(1).toNanos()))
			.isEqualTo(new State(10, 10 * Duration.ofDays(1).toNanos()));
	}

	private static long ms(long millis) {
		return millis * 1_000_000L;
	}

	@Test
	void mostEarnedBetweenCountsEveryRefillThatCanFallInTheInterval() {
		TokenBucketSettings greedy = greedy(10, 3, Duration.ofSeconds(1));
		assertThat(TokenBucket.mostEarnedBetween(greedy, T0, T0)).isZero();
		assertThat(TokenBucket.mostEarnedBetween(greedy, T0, T0 - 1)).isZero();
		assertThat(TokenBucket.mostEarnedBetween(greedy, T0, T0 + SECOND)).isEqualTo(3);
		assertThat(TokenBucket.mostEarnedBetween(greedy, T0, T0 + SECOND + 1)).isEqualTo(4);
		assertThat(TokenBucket.mostEarnedBetween(greedy, T0, T0 + 1)).isEqualTo(1);
		TokenBucketSettings interval = interval(10, 3, Duration.ofSeconds(1));
		assertThat(TokenBucket.mostEarnedBetween(interval, T0, T0 + 1)).isEqualTo(3);
		assertThat(TokenBucket.mostEarnedBetween(interval, T0, T0 + SECOND)).isEqualTo(3);
		assertThat(TokenBucket.mostEarnedBetween(interval, T0, T0 + SECOND + 1)).isEqualTo(6);
		assertThat(TokenBucket.mostEarnedBetween(interval, T0, T0 + 2 * SECOND)).isEqualTo(6);
	}

	private static TokenBucketSettings interval(long capacity, long refillTokens, Duration period) {
		return new TokenBucketSettings(capacity, refillTokens, period, RefillStrategy.INTERVAL);
	}

	private static TokenBucketSettings greedy(long capacity, long refillTokens, Duration period) {
		return new TokenBucketSettings(capacity, refillTokens, period, RefillStrategy.GREEDY);
	}

	/** A bucket kept between calls, as ExWaiter's caller keeps the tuple; answers "ok n" or "error n". */
	private static final class Bucket {

		private final TokenBucketSettings settings;

		private State state;

		private Result last;

		Bucket(TokenBucketSettings settings, long now) {
			this.settings = settings;
			this.state = TokenBucket.full(settings, now);
		}

		String take(long now, long cost) {
			this.last = TokenBucket.tryTake(this.settings, this.state, now, cost);
			this.state = this.last.state();
			return (this.last.permitted() ? "ok " : "error ") + this.last.remaining();
		}

	}

}
