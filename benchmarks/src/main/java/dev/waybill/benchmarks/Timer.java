package dev.waybill.benchmarks;

/**
 * Elapsed wall-clock time and rates.
 */
final class Timer {

	private final long started = System.nanoTime();

	static Timer start() {
		return new Timer();
	}

	/**
	 * Returns the seconds since the timer started.
	 * @return the seconds
	 */
	double seconds() {
		return (System.nanoTime() - this.started) / 1e9;
	}

	/**
	 * Returns {@code count} per second since the timer started.
	 * @param count what was done
	 * @return the rate
	 */
	double rate(long count) {
		return count / seconds();
	}

}
