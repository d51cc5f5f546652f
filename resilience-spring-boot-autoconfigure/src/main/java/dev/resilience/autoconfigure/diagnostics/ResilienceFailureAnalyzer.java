package dev.resilience.autoconfigure.diagnostics;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;

import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.internal.SettingsText;

/**
 * Analyzes the starter's configuration failures for Spring Boot's startup report. It claims,
 * anywhere in the cause chain, a {@link ResilienceConfigurationException} (annotations and
 * expressions, each with its action), a refused property worded by {@link PropertyErrors}
 * ({@code resilience.<property> <problem>} or {@code resilience.<entry>: <problem>}), and a
 * failure to bind a {@code resilience.*} property. It runs before Boot's own analyzers, which
 * would otherwise describe the binding of a {@code resilience} properties class as a whole;
 * every other failure it leaves to them.
 */
final class ResilienceFailureAnalyzer implements FailureAnalyzer, Ordered {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("resilience");

	/** {@link PropertyErrors}' format: the property or entry, then a space or a colon. */
	private static final Pattern REFUSED_PROPERTY = Pattern.compile("(resilience\\.[a-z0-9\\-.\\[\\]]*[a-z0-9\\]])[ :].*",
			Pattern.DOTALL);

	private static final String DURATION = "a duration such as 250ms, 5s, 1m or PT5S";

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		for (Throwable each = failure; each != null; each = (each.getCause() != each) ? each.getCause() : null) {
			if (each instanceof ResilienceConfigurationException mistake) {
				String action = mistake.getAction();
				return new FailureAnalysis(String.valueOf(mistake.getMessage()),
						(action != null) ? action : "Correct the annotation or property named above.", mistake);
			}
			if (each instanceof BindException bind && isResilience(bind.getName())) {
				return bindFailure(bind);
			}
			FailureAnalysis refused = refusedProperty(each);
			if (refused != null) {
				return refused;
			}
		}
		return null;
	}

	/** A refused property in {@link PropertyErrors}' words: it names the property, so it is the description. */
	private static @Nullable FailureAnalysis refusedProperty(Throwable failure) {
		if (!(failure instanceof IllegalArgumentException) && !(failure instanceof IllegalStateException)) {
			return null;
		}
		Matcher matcher = REFUSED_PROPERTY.matcher(String.valueOf(failure.getMessage()));
		if (!matcher.matches()) {
			return null;
		}
		return new FailureAnalysis(String.valueOf(failure.getMessage()),
				"Correct " + matcher.group(1) + " in the application's configuration (application.yml or "
						+ "application.properties), as the description says.",
				failure);
	}

	private static FailureAnalysis bindFailure(BindException bind) {
		// A refusal of the properties class itself names the property better than the binding does.
		for (Throwable cause = bind.getCause(); cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof UnboundConfigurationPropertiesException unbound) {
				return unboundProperties(unbound, bind);
			}
			FailureAnalysis refused = refusedProperty(cause);
			if (refused != null) {
				return refused;
			}
		}
		ConfigurationProperty property = bind.getProperty();
		String name = (property != null) ? property.getName().toString() : bind.getName().toString();
		Object value = (property != null) ? property.getValue() : null;
		StringBuilder description = new StringBuilder(name);
		description.append((value != null) ? " cannot be '" + value + "'" : " cannot be bound");
		Class<?> type = bind.getTarget().getType().resolve(Object.class);
		Throwable reason = rootCause(bind);
		// An enum's reason names the Java constant; the action lists the values as YAML writes them.
		if (reason != bind && reason.getMessage() != null && !type.isEnum()) {
			description.append(": ").append(reason.getMessage());
		}
		appendOrigin(description, (property != null) ? property.getOrigin() : null);
		return new FailureAnalysis(description.toString(), "Write " + name + " as " + expected(type) + ".", bind);
	}

	private static FailureAnalysis unboundProperties(UnboundConfigurationPropertiesException unbound, BindException bind) {
		StringBuilder description = new StringBuilder();
		for (ConfigurationProperty property : unbound.getUnboundProperties()) {
			description.append((description.length() > 0) ? "\n" : "")
				.append(property.getName())
				.append(" is not a property of the resilience starter");
			appendOrigin(description, property.getOrigin());
		}
		return new FailureAnalysis(description.toString(),
				"Correct the property's name, or remove it: docs/configuration.md lists every resilience.* property, "
						+ "and an IDE completes them from the starter's configuration metadata.",
				bind);
	}

	private static void appendOrigin(StringBuilder description, @Nullable Origin origin) {
		if (origin != null) {
			description.append(" (from ").append(origin).append(')');
		}
	}

	/** What a value of the target type looks like, in the words of application.yml. */
	private static String expected(Class<?> type) {
		if (type == java.time.Duration.class) {
			return DURATION;
		}
		if (type.isEnum()) {
			return "one of " + Arrays.stream(type.getEnumConstants())
				.map((constant) -> SettingsText.of((Enum<?>) constant))
				.collect(Collectors.joining(", "));
		}
		if (type == boolean.class || type == Boolean.class) {
			return "true or false";
		}
		if (type == Class.class) {
			return "the fully qualified name of a class on the classpath";
		}
		if (type.isPrimitive() || Number.class.isAssignableFrom(type)) {
			return "a number";
		}
		return "a " + type.getSimpleName();
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root;
	}

	private static boolean isResilience(ConfigurationPropertyName name) {
		return ROOT.equals(name) || ROOT.isAncestorOf(name);
	}

}
