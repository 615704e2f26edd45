package dev.waybill.samples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.samples.billing.Payments;

/**
 * The check that matters: how many payments the billing service recorded for each order placed.
 *
 * @param billedOnce billable orders with exactly one payment
 * @param billedTwice orders with more than one payment
 * @param unbilled billable orders with none
 * @param problems what is wrong, empty when every billable order has one payment and no
 * unbillable order has any
 */
record OrderPayments(long billedOnce, long billedTwice, long unbilled, List<String> problems) {

	static OrderPayments of(JdbcTemplate billing, List<UUID> billable, List<UUID> unbillable) {
		List<UUID> all = new ArrayList<>(billable);
		all.addAll(unbillable);
		Map<UUID, Integer> payments = new Payments(billing).paymentsOf(all)
			.stream()
			.collect(Collectors.toMap(Payments.OrderPayments::orderId, Payments.OrderPayments::payments));
		long once = billable.stream().filter((id) -> payments.getOrDefault(id, 0) == 1).count();
		long twice = payments.values().stream().filter((count) -> count > 1).count();
		long unbilled = billable.stream().filter((id) -> !payments.containsKey(id)).count();
		long billedUnbillable = unbillable.stream().filter(payments::containsKey).count();
		List<String> problems = new ArrayList<>();
		if (twice > 0) {
			problems.add(twice + " orders were billed more than once");
		}
		if (unbilled > 0) {
			problems.add(unbilled + " billable orders were not billed");
		}
		if (billedUnbillable > 0) {
			problems.add(billedUnbillable + " unbillable orders were billed");
		}
		return new OrderPayments(once, twice, unbilled, problems);
	}

}
