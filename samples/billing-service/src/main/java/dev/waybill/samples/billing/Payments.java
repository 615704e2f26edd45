package dev.waybill.samples.billing;

import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The billing service's accounts and payments, over JDBC. Writes join the caller's transaction:
 * for the handlers, the inbox transaction.
 */
@Repository
public class Payments {

	private final JdbcTemplate jdbc;

	public Payments(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Opens a customer's account unless it is open.
	 * @param customer the customer
	 * @return whether the account was opened now
	 */
	public boolean openAccount(String customer) {
		return this.jdbc.update("INSERT INTO billing.accounts (customer) VALUES (?) ON CONFLICT DO NOTHING",
				customer) == 1;
	}

	/**
	 * Records a captured payment.
	 * @param orderId the order paid for
	 * @param customer the customer charged
	 * @param amountCents the amount, in cents
	 * @return the payment id
	 */
	public UUID capture(UUID orderId, String customer, long amountCents) {
		UUID id = UUID.randomUUID();
		this.jdbc.update("INSERT INTO billing.payments (id, order_id, customer, amount_cents) VALUES (?, ?, ?, ?)", id,
				orderId, customer, amountCents);
		return id;
	}

	/**
	 * Returns how many payments each given order has, for the orders that have any.
	 * @param orderIds the orders
	 * @return one entry per order with at least one payment
	 */
	public List<OrderPayments> paymentsOf(List<UUID> orderIds) {
		return this.jdbc.query("SELECT order_id, count(*) AS payments FROM billing.payments "
				+ "WHERE order_id = ANY (?) GROUP BY order_id",
				(row, index) -> new OrderPayments(row.getObject("order_id", UUID.class), row.getInt("payments")),
				(Object) orderIds.toArray(UUID[]::new));
	}

	/**
	 * How many payments an order has.
	 *
	 * @param orderId the order
	 * @param payments its payments, 1 when billed exactly once
	 */
	public record OrderPayments(UUID orderId, int payments) {
	}

}
