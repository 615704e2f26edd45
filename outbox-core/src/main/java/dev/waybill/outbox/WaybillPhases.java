package dev.waybill.outbox;

import org.springframework.context.SmartLifecycle;

/**
 * The {@link SmartLifecycle} phases of Waybill's components. Spring starts lower phases first and
 * stops higher phases first, so at shutdown the consumers stop taking deliveries and finish the
 * ones they hold while the relay still carries the messages their handlers publish; then the web
 * server (Spring Boot's graceful shutdown, phases {@code DEFAULT_PHASE - 1024} and
 * {@code - 2048}) finishes its requests; then the relay drains its confirms and gives back its
 * leases; the PostgreSQL notification listener stops last. Start-up runs in the reverse order.
 * Order a bean of your own against these constants.
 *
 * @since 0.1
 */
public final class WaybillPhases {

	/** The consumers (the RabbitMQ receive endpoint): started last, stopped first. */
	public static final int CONSUMERS = SmartLifecycle.DEFAULT_PHASE - 512;

	/** The retention worker: stops before the relay, its purge is never needed to finish. */
	public static final int RETENTION = SmartLifecycle.DEFAULT_PHASE - 3072;

	/** The relay: stops after the consumers and the web server, so what they published is relayed. */
	public static final int RELAY = SmartLifecycle.DEFAULT_PHASE - 4096;

	/** The PostgreSQL notification listener that wakes the relay: started first, stopped last. */
	public static final int LISTENER = RELAY - 1024;

	private WaybillPhases() {
	}

}
