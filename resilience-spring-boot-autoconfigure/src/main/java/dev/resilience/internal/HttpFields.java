package dev.resilience.internal;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

import org.jspecify.annotations.Nullable;

/**
 * Reads the HTTP header fields in which a partner says how long to wait: {@code Retry-After}
 * (RFC 9110) and the IETF httpapi draft's {@code RateLimit}, a Structured Field list (RFC 9651).
 * A malformed field is ignored whole, never half-applied (the draft's rule).
 */
public final class HttpFields {

	private HttpFields() {
	}

	/**
	 * Parses a {@code Retry-After} value (RFC 9110, section 10.2.3): a number of seconds, or an
	 * HTTP-date read relative to the clock. A date in the past asks for no wait.
	 * @param value the field's value
	 * @param clock the clock an HTTP-date is compared with
	 * @return the wait, or {@code null} when the value is neither form
	 */
	public static @Nullable Duration retryAfter(String value, Clock clock) {
		String text = value.trim();
		if (!text.isEmpty() && text.chars().allMatch((c) -> c >= '0' && c <= '9')) {
			try {
				return Duration.ofSeconds(Long.parseLong(text));
			}
			catch (NumberFormatException ex) {
				return null; // more digits than a long holds: no sensible wait
			}
		}
		try {
			Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
			Duration wait = Duration.between(clock.instant(), at);
			return wait.isNegative() ? Duration.ZERO : wait;
		}
		catch (DateTimeException ex) {
			return null;
		}
	}

	/**
	 * Reads a {@code RateLimit} value, such as {@code "partner-5s";r=0;t=3, "partner-1m";r=40;t=50}:
	 * the longest {@code t} among the items with no quota left ({@code r=0}).
	 * @param value the field's value
	 * @return the seconds until more quota, or {@code null} when no item has {@code r=0} with a
	 * {@code t}, or the field is malformed
	 */
	public static @Nullable Duration exhaustedFor(String value) {
		try {
			return new RateLimitField(value).longestExhausted();
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * A parser of a Structured Field list of items with parameters, only as far as the
	 * {@code RateLimit} field needs it: items are strings or tokens, parameter values numbers,
	 * strings, tokens, byte sequences (the draft's {@code pk}) or booleans. Anything else (an inner
	 * list among them) is malformed, and so are an {@code r} or {@code t} that is not a
	 * non-negative integer.
	 */
	private static final class RateLimitField {

		private final String text;

		private int position;

		RateLimitField(String text) {
			this.text = text;
		}

		@Nullable Duration longestExhausted() {
			long longest = -1;
			skip(' ');
			if (this.position == this.text.length()) {
				throw malformed();
			}
			while (true) {
				bareItem();
				Long remaining = null;
				Long reset = null;
				while (peek() == ';') {
					this.position++;
					skip(' ');
					String name = key();
					Object parameter = Boolean.TRUE;
					if (peek() == '=') {
						this.position++;
						parameter = parameterValue();
					}
					if (name.equals("r")) {
						remaining = integer(parameter);
					}
					else if (name.equals("t")) {
						reset = integer(parameter);
					}
				}
				if (remaining != null && remaining == 0 && reset != null) {
					longest = Math.max(longest, reset);
				}
				skip(' ', '\t');
				if (this.position == this.text.length()) {
					return (longest >= 0) ? Duration.ofSeconds(longest) : null;
				}
				if (peek() != ',') {
					throw malformed();
				}
				this.position++;
				skip(' ', '\t');
				if (this.position == this.text.length()) {
					throw malformed(); // a trailing comma
				}
			}
		}

		private static Long integer(Object parameter) {
			if (!(parameter instanceof Long number) || number < 0) {
				throw malformed();
			}
			return number;
		}

		private void bareItem() {
			char first = peek();
			if (first == '"') {
				string();
			}
			else if (Character.isLetter(first) || first == '*') {
				token();
			}
			else {
				throw malformed();
			}
		}

		private Object parameterValue() {
			char first = peek();
			if (first == '"') {
				return string();
			}
			if (first == ':') {
				return byteSequence();
			}
			if (first == '?') {
				this.position++;
				char value = peek();
				this.position++;
				if (value != '0' && value != '1') {
					throw malformed();
				}
				return value == '1';
			}
			if (first == '-' || (first >= '0' && first <= '9')) {
				return number();
			}
			if (Character.isLetter(first) || first == '*') {
				return token();
			}
			throw malformed();
		}

		/** An integer as a {@link Long}, a decimal as a {@link Double}. */
		private Object number() {
			int start = this.position;
			if (peek() == '-') {
				this.position++;
			}
			int digits = digits();
			if (digits == 0 || digits > 15) {
				throw malformed(); // more than 15 digits is not a Structured Field integer
			}
			if (peek() != '.') {
				return Long.parseLong(this.text.substring(start, this.position));
			}
			this.position++;
			int fraction = digits();
			if (digits > 12 || fraction == 0 || fraction > 3) {
				throw malformed();
			}
			return Double.parseDouble(this.text.substring(start, this.position));
		}

		private int digits() {
			int digits = 0;
			while (peek() >= '0' && peek() <= '9') {
				this.position++;
				digits++;
			}
			return digits;
		}

		private String byteSequence() {
			int start = ++this.position;
			while (this.position < this.text.length() && this.text.charAt(this.position) != ':') {
				char c = this.text.charAt(this.position++);
				if (!(Character.isLetterOrDigit(c) && c < 0x80 || c == '+' || c == '/' || c == '=')) {
					throw malformed();
				}
			}
			if (this.position == this.text.length()) {
				throw malformed(); // not closed
			}
			return this.text.substring(start, this.position++);
		}

		private String string() {
			this.position++; // the opening quote
			StringBuilder value = new StringBuilder();
			while (this.position < this.text.length()) {
				char c = this.text.charAt(this.position++);
				if (c == '"') {
					return value.toString();
				}
				if (c == '\\') {
					char escaped = peek();
					if (escaped != '"' && escaped != '\\') {
						throw malformed();
					}
					this.position++;
					value.append(escaped);
				}
				else if (c < 0x20 || c > 0x7e) {
					throw malformed();
				}
				else {
					value.append(c);
				}
			}
			throw malformed(); // not closed
		}

		private String token() {
			int start = this.position;
			this.position++;
			while (this.position < this.text.length() && isTokenChar(this.text.charAt(this.position))) {
				this.position++;
			}
			return this.text.substring(start, this.position);
		}

		private static boolean isTokenChar(char c) {
			return Character.isLetterOrDigit(c) && c < 0x80 || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
		}

		private String key() {
			char first = peek();
			if (!((first >= 'a' && first <= 'z') || first == '*')) {
				throw malformed();
			}
			int start = this.position;
			while (this.position < this.text.length()) {
				char c = this.text.charAt(this.position);
				if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*')) {
					break;
				}
				this.position++;
			}
			return this.text.substring(start, this.position);
		}

		private char peek() {
			return (this.position < this.text.length()) ? this.text.charAt(this.position) : '\0';
		}

		private void skip(char... blanks) {
			while (this.position < this.text.length() && new String(blanks).indexOf(this.text.charAt(this.position)) >= 0) {
				this.position++;
			}
		}

		private static IllegalArgumentException malformed() {
			return new IllegalArgumentException("malformed RateLimit field");
		}

	}

}
