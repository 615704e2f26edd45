package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Whether RabbitMQ blocks the publishing connection ({@code connection.blocked}: a memory or disk
 * alarm on some node of the cluster), told once when it begins and once when it ends. While
 * blocked, the broker reads nothing the connection sends: publishes and their confirms wait, the
 * outbox's rows stay pending, and nothing else would say why.
 */
final class BlockedPublishing {

	private static final Log logger = LogFactory.getLog(RabbitTransport.class);

	private @Nullable String reason;

	/** The node that blocks the connection, host:port, while it does. */
	private String node = "";

	private long since;

	BlockedPublishing() {
	}

	synchronized void blocked(String node, String reason) {
		if (this.reason == null) {
			this.since = System.nanoTime();
			this.node = node;
			logger.warn("RabbitMQ blocks Waybill's connection to " + node + " (" + reason + "): the broker "
					+ "takes no publishes until its resource alarm clears; messages wait in the outbox");
		}
		this.reason = reason;
	}

	synchronized void unblocked() {
		if (this.reason != null) {
			logger.info("RabbitMQ unblocked Waybill's connection to " + this.node + " after " + blockedFor());
		}
		this.reason = null;
	}

	/** What blocks the connection ("node (reason) for PT3S"), or {@literal null} while nothing does. */
	synchronized @Nullable String describe() {
		if (this.reason == null) {
			return null;
		}
		return this.node + " (" + this.reason + ") for " + blockedFor();
	}

	private Duration blockedFor() {
		return Duration.ofMillis(Duration.ofNanos(System.nanoTime() - this.since).toMillis());
	}

	/** The connection is gone: a recovered one is told again if the alarm still holds. */
	synchronized void forget() {
		this.reason = null;
	}

}
