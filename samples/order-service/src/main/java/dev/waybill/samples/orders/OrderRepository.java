package dev.waybill.samples.orders;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/**
 * The orders.
 */
public interface OrderRepository extends JpaRepository<Order, UUID> {

	/**
	 * Tells whether a customer has placed an order before.
	 * @param customer the customer
	 * @return whether an order of theirs exists
	 */
	boolean existsByCustomer(String customer);

}
