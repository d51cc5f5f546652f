/**
 * JMH benchmarks of the rate limiter against the libraries a user would pick instead
 * (Bucket4j, Resilience4j, Guava), a heap footprint measurement, and the report that
 * {@code benchmarks/run.sh} writes to {@code docs/benchmarks.md}.
 */
@NullMarked
package dev.resilience.benchmarks;

import org.jspecify.annotations.NullMarked;
