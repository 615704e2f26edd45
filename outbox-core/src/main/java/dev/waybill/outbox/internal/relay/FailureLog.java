package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs delivery failures at WARN, at most once per period per destination, with the number of
 * failures it kept quiet about since the last line, so a broken destination shows up at once
 * without flooding the log.
 */
final class FailureLog {

	private static final Log logger = LogFactory.getLog(Settler.class);

	private final long periodNanos;

	private final Map<String, Window> windows = new ConcurrentHashMap<>();

	FailureLog(Duration period) {
		this.periodNanos = period.toNanos();
	}

	void warn(String destination, String text) {
		long now = System.nanoTime();
		Window window = this.windows.computeIfAbsent(destination, (key) -> new Window());
		int suppressed;
		synchronized (window) {
			if (window.logged && now - window.loggedAt < this.periodNanos) {
				window.suppressed++;
				return;
			}
			suppressed = window.suppressed;
			window.logged = true;
			window.loggedAt = now;
			window.suppressed = 0;
		}
		logger.warn((suppressed > 0) ? text + " [" + suppressed + " more failure(s) for " + destination
				+ " were not logged in the last " + period() + "]" : text);
	}

	private String period() {
		Duration period = Duration.ofNanos(this.periodNanos);
		return (period.toMillis() % 1000 == 0) ? period.toSeconds() + "s" : period.toMillis() + "ms";
	}

	private static final class Window {

		boolean logged;

		long loggedAt;

		int suppressed;

	}

}
