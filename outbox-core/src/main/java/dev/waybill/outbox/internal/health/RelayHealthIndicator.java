package dev.waybill.outbox.internal.health;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;

import dev.waybill.kernel.WaybillHealthComponent;
import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.WakeUpMode;
import dev.waybill.outbox.internal.relay.Relay;
import dev.waybill.outbox.relay.CircuitState;

/**
 * The {@code relay} component: DOWN while the relay is stopped, while its circuit breaker is not
 * closed (the broker is unreachable, or being probed after an outage; nothing is delivered), while
 * the broker blocks publishing (a resource alarm), while its claims fail (most often: the
 * database is unavailable; nothing is claimed; another store's failing claims are shown as
 * {@code storesFailing} and leave it UP, since the other stores are relayed), while it has held messages back for more than a
 * second until standbys have their commits ({@code waybill.outbox.relay.await-standbys}; no
 * standby streams) or when one of its threads died; UP otherwise.
 * A lost {@code LISTEN} connection is shown ({@code listening=false}) but leaves it UP: the relay
 * still polls, only later. {@code wakeUps} says how other instances' commits wake it: {@code listen},
 * {@code poll} (no session to listen in, see {@code waybill.notifications.*}), or {@code testing}
 * while that is found out at start-up.
 *
 * @since 0.1
 */
public final class RelayHealthIndicator implements WaybillHealthComponent {

	private final Relay relay;

	private final @Nullable PostgresNotificationListener notifications;

	/**
	 * Creates the component.
	 * @param relay the relay
	 * @param notifications the commit notification listener, or {@literal null} when there is none
	 */
	public RelayHealthIndicator(Relay relay, @Nullable PostgresNotificationListener notifications) {
		this.relay = Objects.requireNonNull(relay, "relay must not be null");
		this.notifications = notifications;
	}

	@Override
	public String name() {
		return "relay";
	}

	@Override
	public Health health() {
		CircuitState circuit = this.relay.circuitState();
		boolean running = this.relay.isRunning();
		int live = this.relay.status().liveThreads();
		int expected = this.relay.status().expectedThreads();
		Duration claimsFailing = this.relay.status().claimsFailingFor();
		String blocked = this.relay.status().brokerBlocked();
		Duration awaitingStandbys = this.relay.status().standbysAwaitedFor();
		// HALF_OPEN is an outage still: its probe of a broker that black-holes connections waits out
		// the connection timeout after every cool-down. A blocked connection delivers nothing either,
		// and its confirms would be overdue only after the confirm timeout.
		Health.Builder health = (running && circuit == CircuitState.CLOSED && claimsFailing == null
				&& blocked == null && awaitingStandbys == null && live == expected) ? Health.up() : Health.down();
		health.withDetail("id", this.relay.id())
			.withDetail("running", running)
			.withDetail("circuit", circuit.name())
			.withDetail("threadsAlive", live)
			.withDetail("threads", expected);
		if (circuit != CircuitState.CLOSED) {
			health.withDetail("brokerFailure", this.relay.status().lastBrokerFailure());
		}
		if (blocked != null) {
			health.withDetail("brokerBlocked", blocked);
		}
		if (awaitingStandbys != null) {
			health.withDetail("standbysAwaitedFor", awaitingStandbys.toString());
		}
		if (claimsFailing != null) {
			health.withDetail("claimsFailingFor", claimsFailing.toString())
				.withDetail("claimFailure", this.relay.status().lastClaimFailure());
		}
		Map<String, String> storesFailing = this.relay.stores().failing();
		if (!storesFailing.isEmpty()) {
			// Not DOWN: the other stores are relayed, and taking the instance out would stop them too.
			health.withDetail("storesFailing", storesFailing);
		}
		if (this.notifications != null) {
			WakeUpMode mode = this.notifications.modeInEffect();
			health.withDetail("wakeUps", (mode != null) ? mode.name().toLowerCase(java.util.Locale.ROOT) : "testing");
			if (mode != WakeUpMode.POLL) {
				health.withDetail("listening", this.notifications.isListening());
			}
		}
		return health.build();
	}

}
