package dev.waybill.samples.billing;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.samples.messages.CustomerRegistered;

/**
 * Opens the account of a new customer. It shares the billing endpoint (queue {@value #QUEUE})
 * with {@link OrderPlacedHandler}; with several consumer threads the first order may still be
 * billed before this runs, and billing then opens the account itself and this changes nothing.
 */
@Component
@Consumer(queue = CustomerRegisteredHandler.QUEUE)
public class CustomerRegisteredHandler implements MessageHandler<CustomerRegistered> {

	/** The queue: the billing endpoint's, shared with {@link OrderPlacedHandler}. */
	public static final String QUEUE = OrderPlacedHandler.QUEUE;

	private final Payments payments;

	public CustomerRegisteredHandler(Payments payments) {
		this.payments = payments;
	}

	@Override
	public void handle(CustomerRegistered customer, MessageContext context) {
		this.payments.openAccount(customer.customer());
	}

}
