package dev.resilience.benchmarks;

/**
 * A section of {@code docs/benchmarks.md} that a script other than {@code benchmarks/run.sh}
 * writes between two marker lines, so that each script replaces only what it measured.
 *
 * @param start the marker line before the section
 * @param end the marker line after it
 */
record ReportSection(String start, String end) {

	/**
	 * Returns a document that {@code run.sh} made anew with this section as the previous document
	 * had it, so that no script drops what another measured.
	 */
	String keep(String previous, String document) {
		int start = previous.indexOf(this.start);
		int end = previous.indexOf(this.end);
		return (start >= 0 && end > start) ? replace(document, previous.substring(start, end + this.end.length()))
				: document;
	}

	/** Puts the section in place of the document's one, or at its end when it has none. */
	String replace(String document, String section) {
		int start = document.indexOf(this.start);
		int end = document.indexOf(this.end);
		if (start >= 0 && end > start) {
			return document.substring(0, start) + section + document.substring(end + this.end.length());
		}
		return document + (document.isEmpty() || document.endsWith("\n\n") ? "" : "\n") + section + "\n";
	}

}
