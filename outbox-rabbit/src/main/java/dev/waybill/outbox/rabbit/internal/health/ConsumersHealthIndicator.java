package dev.waybill.outbox.rabbit.internal.health;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.springframework.boot.health.contributor.Health;

import dev.waybill.kernel.WaybillHealthComponent;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;

/**
 * The {@code consumers} component: UP while the receive endpoint consumes every queue, DOWN while
 * it does not (stopped, or the broker unreachable, its connection lost or a consumer cancelled),
 * with the reason as the broker client described it. The queues share one connection: while it is
 * lost none is consuming; a queue whose channel or consumer alone was lost is down on its own.
 *
 * @since 0.1
 */
public final class ConsumersHealthIndicator implements WaybillHealthComponent {

	private final RabbitReceiveEndpoint endpoint;

	/**
	 * Creates the component.
	 * @param endpoint the receive endpoint
	 */
	public ConsumersHealthIndicator(RabbitReceiveEndpoint endpoint) {
		this.endpoint = Objects.requireNonNull(endpoint, "endpoint must not be null");
	}

	@Override
	public String name() {
		return "consumers";
	}

	@Override
	public Health health() {
		boolean consuming = this.endpoint.isConsuming();
		Map<String, Object> queues = new LinkedHashMap<>();
		for (String queue : this.endpoint.queues()) {
			queues.put(queue, this.endpoint.isConsuming(queue) ? "consuming" : "not consuming");
		}
		Health.Builder health = consuming ? Health.up() : Health.down();
		health.withDetail("running", this.endpoint.isRunning()).withDetail("queues", queues);
		if (!consuming) {
			String reason = this.endpoint.notConsumingReason();
			health.withDetail("reason", (reason != null) ? reason
					: (this.endpoint.isRunning() ? "connecting" : "the endpoint is stopped"));
		}
		return health.build();
	}

}
