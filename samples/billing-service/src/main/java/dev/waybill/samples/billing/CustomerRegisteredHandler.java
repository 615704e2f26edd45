package dev.waybill.samples.billing;

import org.springframework.stereotype.Component;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.samples.messages.CustomerRegistered;

/**
 * Opens the account of a new customer. The first order may be billed before this arrives (the two
 * travel on different queues); billing then opens the account itself and this changes nothing.
 */
@Component
@Consumer(queue = CustomerRegisteredHandler.QUEUE)
public class CustomerRegisteredHandler implements MessageHandler<CustomerRegistered> {

	/** The queue, also the consumer id in this service's inbox. */
	public static final String QUEUE = "billing.customer-registered";

	private final Payments payments;

	public CustomerRegisteredHandler(Payments payments) {
		this.payments = payments;
	}

	@Override
	public void handle(CustomerRegistered customer, MessageContext context) {
		this.payments.openAccount(customer.customer());
	}

}
