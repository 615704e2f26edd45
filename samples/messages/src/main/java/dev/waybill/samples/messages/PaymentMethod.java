package dev.waybill.samples.messages;

/**
 * How a customer pays for an order.
 */
public enum PaymentMethod {

	/** Charged to a card. */
	CARD,

	/** Billed to the customer's account. */
	INVOICE,

	/** Paid in goods: the billing service cannot handle it, so such an order ends in its error queue. */
	BARTER

}
