package dev.resilience.autoconfigure.support;

import java.util.Collection;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Finds the configured name a misspelled one most likely meant, by the optimal string alignment
 * distance (Damerau-Levenshtein with adjacent transpositions, each substring edited once). Not
 * API: public so that the capabilities' wiring can suggest names in its messages.
 */
public final class ClosestName {

	private ClosestName() {
	}

	/**
	 * Returns the configured name closest to {@code name}, when one is close enough to be a typo:
	 * at most a third of the name's letters (and at least one) edited, case ignored.
	 * @param name the name as written
	 * @param configured the names that exist
	 * @return the closest name, or {@code null} when none is close
	 */
	public static @Nullable String of(String name, Collection<String> configured) {
		String closest = null;
		int best = Math.max(1, name.length() / 3) + 1;
		for (String candidate : configured) {
			int distance = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
			if (distance < best) {
				best = distance;
				closest = candidate;
			}
		}
		return closest;
	}

	static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

}
