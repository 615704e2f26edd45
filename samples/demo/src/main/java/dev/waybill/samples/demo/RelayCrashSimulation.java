package dev.waybill.samples.demo;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.samples.billing.OrderPlacedHandler;
import dev.waybill.samples.messages.OrderPlaced;

/**
 * Makes the order service's relay publish some messages a second time, as it does after a relay
 * dies between the broker's confirm and marking the scope published: its lease expires and another
 * relay publishes the scope again. Here the scopes of the most recently billed orders are simply
 * marked pending again. Billing's inbox must recognise every copy as a duplicate.
 */
final class RelayCrashSimulation {

	private final JdbcTemplate orders;

	private final JdbcTemplate billing;

	RelayCrashSimulation(JdbcTemplate orders, JdbcTemplate billing) {
		this.orders = orders;
		this.billing = billing;
	}

	/**
	 * Marks the scopes of the {@code count} most recently billed orders pending again.
	 * @param count how many orders' scopes
	 * @return the messages in those scopes, each of which will be delivered a second time
	 */
	int publishAgain(int count) {
		if (count == 0) {
			return 0;
		}
		// The billing endpoint also takes CustomerRegistered; a scope holds one OrderPlaced and at most
		// one CustomerRegistered, so twice as many candidates hold at least count orders.
		List<UUID> candidates = this.billing.queryForList("SELECT message_id FROM billing.inbox_state "
				+ "WHERE consumer_id = ? AND processed_at IS NOT NULL ORDER BY processed_at DESC LIMIT ?", UUID.class,
				OrderPlacedHandler.QUEUE, 2 * count);
		Set<UUID> orders = new HashSet<>(this.orders.queryForList("SELECT message_id FROM orders.outbox_message "
				+ "WHERE message_id = ANY (?) AND message_type = ?", UUID.class,
				(Object) candidates.toArray(UUID[]::new), OrderPlaced.TYPE));
		List<UUID> billed = candidates.stream().filter(orders::contains).limit(count).toList();
		List<UUID> scopes = this.orders.queryForList("UPDATE orders.outbox_state SET status = 'pending', "
				+ "published_at = NULL, attempts = 0, next_attempt_at = now(), lease_owner = NULL, lease_until = NULL "
				+ "WHERE status = 'published' AND id IN (SELECT outbox_id FROM orders.outbox_message "
				+ "WHERE message_id = ANY (?)) RETURNING id", UUID.class, (Object) billed.toArray(UUID[]::new));
		Integer messages = this.orders.queryForObject("SELECT count(*) FROM orders.outbox_message WHERE outbox_id = ANY (?)",
				Integer.class, (Object) scopes.toArray(UUID[]::new));
		return (messages != null) ? messages : 0;
	}

}
