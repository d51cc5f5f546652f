package dev.resilience.autoconfigure.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link AttributeOverlay}: each setter called exactly when its attribute is set. */
class AttributeOverlayTests {

	private final List<Object> applied = new ArrayList<>();

	private final AttributeOverlay overlay = new AttributeOverlay(new AnnotationAttributeResolver(null), "@X on A.b()");

	@Test
	void markersLeaveTheSettingsAlone() {
		this.overlay.integer(AttributeOverlay.UNSET_INT, this.applied::add)
			.decimal(AttributeOverlay.UNSET_DOUBLE, this.applied::add)
			.duration("", "delay", this.applied::add)
			.duration("  ", "delay", this.applied::add)
			.one(new String[0], "backoff", this.applied::add)
			.flag(new boolean[0], "flag", this.applied::add)
			.list(new String[0], this.applied::add);
		assertThat(this.applied).isEmpty();
	}

	@Test
	void setValuesAreAppliedEvenAtTheBuiltInDefaults() {
		this.overlay.integer(3, this.applied::add)
			.integer(-1, this.applied::add)
			.integer(0, this.applied::add)
			.decimal(2.0, this.applied::add)
			.duration("100ms", "delay", this.applied::add)
			.one(new String[] { "EXPONENTIAL" }, "backoff", this.applied::add)
			.flag(new boolean[] { false }, "flag", this.applied::add)
			.list(new String[] { "a", "b" }, this.applied::add);
		assertThat(this.applied).containsExactly(3, -1, 0, 2.0, Duration.ofMillis(100), "EXPONENTIAL", false,
				List.of("a", "b"));
	}

	@Test
	void badValuesNameTheAttribute() {
		assertThatIllegalStateException().isThrownBy(() -> this.overlay.duration("soon", "delay", this.applied::add))
			.withMessageStartingWith("'soon' of @X on A.b() (delay) is not a duration");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.overlay.flag(new boolean[] { true, true }, "flag", this.applied::add))
			.withMessage("@X on A.b() (flag) sets 2 values, but takes one at most");
		assertThat(this.applied).isEmpty();
	}

}
