package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.WindowAlgorithm;

/**
 * Names the Redis keys of one limiter's keys: {@code <prefix><limiter>:{<tag>}:<part>}, where the
 * tag is a hash of the limiter's name and the user's key. A user's key may hold anything (braces,
 * spaces, control characters, lone surrogates, ten kilobytes of it): hashed, it can neither move
 * the hash tag nor make a Redis key long, and two distinct user keys get distinct tags (128 bits of
 * SHA-256 over the key's UTF-16 code units, so that even unpaired surrogates stay distinct). Every
 * key of one (limiter, key) pair shares the tag, so Redis Cluster keeps them in one slot and runs
 * the multi-key script.
 * <p>
 * Parts: {@code s} the state (a string of packed numbers), {@code w1}, {@code w2}, ... one sorted set per exact window,
 * {@code l} the leases, {@code p} the key's pause (SPEC §10; {@code pause.lua}).
 */
final class RedisKeys {

	private static final HexFormat HEX = HexFormat.of();

	/** The hash's bytes in a tag, each written as two hex digits. */
	private static final int TAG_BYTES = 16;

	/** The pause's part alone, for {@code pause.lua}. */
	private static final byte[][] PAUSE_TAIL = { bytes("}:p") };

	/** The prefix and the escaped limiter name, up to the tag's opening brace. */
	private final byte[] head;

	/**
	 * A digest that has taken in the name's length and the name, the part of every tag's hash
	 * that is the same: each key's hash continues a copy of it, cheaper than a new digest.
	 */
	private final MessageDigest named;

	/** The parts after the tag, such as {@code }:s}, of the keys a decision takes without the pause. */
	private final byte[][] tails;

	/** The parts after the tag of the keys a decision takes with the pause: {@link #tails}, then the pause's. */
	private final byte[][] pausedTails;

	RedisKeys(String keyPrefix, String limiterName, RateLimiterSettings settings) {
		checkPrefix(keyPrefix);
		MessageDigest named = sha256();
		// The name's length first: no two (name, key) pairs give the same bytes.
		named.update(ByteBuffer.allocate(Integer.BYTES).putInt(limiterName.length()).array());
		named.update(codeUnits(limiterName));
		this.named = named;
		this.head = (keyPrefix + escape(limiterName) + ":{").getBytes(StandardCharsets.UTF_8);
		int windows = (settings.windowAlgorithm() == WindowAlgorithm.LOG) ? settings.windows().size() : 0;
		int count = 1 + windows + ((settings.maxConcurrent() > 0) ? 1 : 0);
		this.tails = new byte[count][];
		this.tails[0] = bytes("}:s");
		for (int i = 1; i <= windows; i++) {
			this.tails[i] = bytes("}:w" + i);
		}
		if (settings.maxConcurrent() > 0) {
			this.tails[count - 1] = bytes("}:l");
		}
		this.pausedTails = Arrays.copyOf(this.tails, count + 1);
		this.pausedTails[count] = PAUSE_TAIL[0];
	}

	/**
	 * Checks a key prefix: a brace in it would be taken for the hash tag, putting every key of
	 * every limiter in one cluster slot.
	 * @param keyPrefix the prefix
	 * @throws IllegalArgumentException if it holds a brace
	 */
	static void checkPrefix(String keyPrefix) {
		if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("resilience.redis.key-prefix must not contain '{' or '}' (Redis Cluster "
					+ "would take them for the hash tag) but was '" + keyPrefix + "'");
		}
	}

	/** The limiter's name with {@code %}, {@code {} and {@code }} percent-encoded, so it cannot hold a tag. */
	static String escape(String name) {
		StringBuilder escaped = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			switch (c) {
				case '%' -> escaped.append("%25");
				case '{' -> escaped.append("%7B");
				case '}' -> escaped.append("%7D");
				default -> escaped.append(c);
			}
		}
		return escaped.toString();
	}

	/** The hash tag of a user's key: 32 hex digits. */
	String tag(String key) {
		return HEX.formatHex(hash(key), 0, TAG_BYTES);
	}

	/** SHA-256 over the limiter's name and the key, the name's part taken from {@link #named}. */
	private byte[] hash(String key) {
		MessageDigest digest;
		try {
			digest = (MessageDigest) this.named.clone();
		}
		catch (CloneNotSupportedException ex) {
			throw new IllegalStateException("SHA-256 digests of this platform cannot be copied", ex);
		}
		return digest.digest(codeUnits(key));
	}

	/** Every UTF-16 code unit, high byte first (even a lone surrogate, which an encoder would replace). */
	private static byte[] codeUnits(String value) {
		byte[] bytes = new byte[2 * value.length()];
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			bytes[2 * i] = (byte) (c >>> 8);
			bytes[2 * i + 1] = (byte) c;
		}
		return bytes;
	}

	/**
	 * Returns the Redis keys of a user's key that a decision of a limiter without pauses takes, in
	 * the order the script takes them.
	 * @param key the user's key
	 * @return the keys
	 */
	byte[][] keys(String key) {
		return keys(key, false);
	}

	/**
	 * Returns the Redis keys of a user's key, in the order the script takes them: with
	 * {@code pause}, the key's pause comes last, after the keys of its state (the decision scripts
	 * read it first while the limiter pauses; a reset deletes it too).
	 * @param key the user's key
	 * @param pause whether the pause is among them
	 * @return the keys
	 */
	byte[][] keys(String key, boolean pause) {
		return names(key, pause ? this.pausedTails : this.tails);
	}

	/**
	 * Returns the Redis key of a user's key's pause, alone, as {@code pause.lua} takes it: in the
	 * slot of the key's state, which it shares the tag with.
	 * @param key the user's key
	 * @return the one key
	 */
	byte[][] pauseKey(String key) {
		return names(key, PAUSE_TAIL);
	}

	private byte[][] names(String key, byte[][] tails) {
		byte[] hash = hash(key);
		byte[][] keys = new byte[tails.length][];
		int tag = 2 * TAG_BYTES;
		for (int i = 0; i < keys.length; i++) {
			byte[] tail = tails[i];
			byte[] name = new byte[this.head.length + tag + tail.length];
			System.arraycopy(this.head, 0, name, 0, this.head.length);
			for (int j = 0; j < TAG_BYTES; j++) {
				name[this.head.length + 2 * j] = (byte) HEX.toHighHexDigit(hash[j]);
				name[this.head.length + 2 * j + 1] = (byte) HEX.toLowHexDigit(hash[j]);
			}
			System.arraycopy(tail, 0, name, this.head.length + tag, tail.length);
			keys[i] = name;
		}
		return keys;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
