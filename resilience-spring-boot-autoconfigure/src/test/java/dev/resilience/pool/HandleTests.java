package dev.resilience.pool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A connection with its count of holders: closed once, when the last one lets go. */
class HandleTests {

	private final CountingFactory factory = new CountingFactory();

	@Test
	void theConnectionIsClosedWhenTheLastHolderLetsGo() {
		Handle<Integer> handle = new Handle<>(7, this.factory);
		assertThat(handle.retainIfOpen()).isTrue();
		assertThat(handle.retainIfOpen()).isTrue();
		handle.release();
		handle.release();
		assertThat(this.factory.destroyed).hasValue(0);
		handle.release();
		assertThat(this.factory.destroyedIds).containsExactly(7);
	}

	@Test
	void aClosedConnectionCannotBeHeldAgainNorClosedTwice() {
		Handle<Integer> handle = new Handle<>(7, this.factory);
		handle.release();
		assertThat(handle.retainIfOpen()).isFalse();
		assertThat(this.factory.destroyed).hasValue(1);
	}

}
