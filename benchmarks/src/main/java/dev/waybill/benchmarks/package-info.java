/**
 * Waybill's benchmarks: one command ({@code ./benchmarks/run}) measures the relay, the write path,
 * latency, the inbox and retention against the broker's and the database's own ceilings, and
 * writes the table to {@code benchmarks/results/}. Not a library; nothing here is published.
 */
@NullMarked
package dev.waybill.benchmarks;

import org.jspecify.annotations.NullMarked;
